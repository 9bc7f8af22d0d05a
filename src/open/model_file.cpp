// model_file::open: the three steps every caller with a path would write.
#include "onnxview/model_file.hpp"

#include <cstdint>
#include <utility>

#include "onnxview/metadata_reads.hpp"
#include "onnxview/verify.hpp"

namespace onnxview {

namespace {

// options::verified for drop_verified_pages: the mapping's pages of bytes
// the verification has passed go (the page cache keeps them).
void drop_pages(void* file, const char* data, std::size_t size) noexcept {
    const mapped_file& f = *static_cast<const mapped_file*>(file);
    const std::uint64_t offset = static_cast<std::uint64_t>(data - f.data());
    // Reading near the last run mapped some pages before it again.
    const std::uint64_t start = offset > mapping_fault_span ? offset - mapping_fault_span : 0;
    (void)f.advise(access_hint::dontneed, start, offset - start + size);
}

// fetch_external_ of a model opened self-contained.
result<std::string_view> refuse_external(void*, const tensor_view& t, std::uint64_t) noexcept {
    const wire::message& m = t.wire_message();
    return error(errc::external_not_opened, m.offset_of(m.begin()));
}

}  // namespace

result<model_file> model_file::open(const char* path, const options& opts) noexcept {
    auto file = mapped_file::open(path, opts);
    if (!file) return file.err();
    options ext = opts;
    if (ext.model_path == nullptr && ext.external_base_dir == nullptr) ext.model_path = path;
    return adopt(std::move(file.value()), ext);
}

result<model_file> model_file::adopt(mapped_file&& file, const options& opts) noexcept {
    model_file mf;
    mf.file_ = std::move(file);
    if (mf.file_.on_demand()) {
        if (const error e = mf.fetch_for_parse(opts)) return e;
    } else if (opts.reads == model_reads::metadata) {
        // Before the first byte is read: a cold page fault's read-around depends on it.
        const metadata_read_limits limits;
        // Reading the headers of a large file must not map its weights
        // (copy_metadata_pages). With drop_verified_pages, verify() drops
        // the pages behind it: copies would be made only to be dropped.
        if (mf.file_.size() >= limits.copy_from && !opts.drop_verified_pages)
            mf.read_ahead_off_ = copy_metadata_pages(mf.file_, limits).random;
        else
            mf.read_ahead_off_ = advise_metadata_reads(mf.file_, limits);
    }
    if (const error e = mf.parse(opts)) return e;
    auto resolver = external_data_resolver::create(opts);
    if (!resolver) return resolver.err();
    mf.resolver_ = std::move(resolver.value());
    mf.fetch_external_ = detail::fetch_through_resolver;
    return mf;
}

result<model_file> model_file::adopt_self_contained(mapped_file&& file, const options& opts) noexcept {
    model_file mf;
    mf.file_ = std::move(file);
    if (const error e = mf.fetch_for_parse(opts)) return e;
    if (const error e = mf.parse(opts)) return e;
    mf.fetch_external_ = refuse_external;
    return mf;
}

error model_file::fetch_for_parse(const options& opts) const noexcept {
    if (!file_.on_demand()) return error();
    // Nothing of it may be read before it is fetched: the metadata, or all.
    return opts.reads == model_reads::metadata ? fetch_metadata(file_) : file_.ensure(0, 0);
}

error model_file::parse(const options& opts) noexcept {
    const std::string_view bytes = file_.bytes();
    error malformed;
    if (opts.verify) {
        options walk = opts;
        if (opts.drop_verified_pages && file_.kind() == mapped_file::storage::mapped && walk.verified == nullptr) {
            walk.verified = drop_pages;
            walk.verified_user = &file_;
        }
        malformed = onnxview::verify(bytes.data(), bytes.size(), schema::msg_ModelProto, walk);
    }
    if (malformed.ok()) {
        model_ = parse_model(bytes.data(), bytes.size(), opts);
        malformed = model_.err();
    }
    if (!malformed.ok()) {
        if (!opts.keep_malformed) return malformed;
        model_ = model_view();
        model_error_ = malformed;
    }
    return error();
}

error model_file::read_ahead(const tensor_view& t) const noexcept {
    if (!read_ahead_off_ && !file_.on_demand()) return error();
    const std::string_view b = t.wire_message().bytes();
    const auto begin = reinterpret_cast<std::uintptr_t>(b.data());
    const auto file_begin = reinterpret_cast<std::uintptr_t>(file_.data());
    // A view of other bytes (another model) gets no hint.
    if (b.empty() || b.size() > file_.size() || begin < file_begin || begin - file_begin > file_.size() - b.size())
        return error();
    if (file_.on_demand()) return file_.ensure(begin - file_begin, b.size());
    (void)file_.advise(access_hint::sequential, begin - file_begin, b.size());
    return error();
}

result<tensor_data> model_file::tensor(const tensor_view& t) noexcept {
    if (const error e = read_ahead(t)) return e;
    const external_payload_source src = external();
    return tensor_data::make(t, &src);
}

result<sparse_data> model_file::sparse_tensor(const sparse_tensor_view& s) noexcept {
    if (s.has_values())
        if (const error e = read_ahead(s.values())) return e;
    if (s.has_indices())
        if (const error e = read_ahead(s.indices())) return e;
    const external_payload_source src = external();
    return sparse_data::make(s, &src);
}

}  // namespace onnxview
