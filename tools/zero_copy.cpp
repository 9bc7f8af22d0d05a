// tools/zero_copy.cpp - payload alignment, zero-copy spans and external data
// problems (zero_copy.hpp).
#include "zero_copy.hpp"

#include <complex>

#include "onnxview/data_types.hpp"
#include "onnxview/decimal.hpp"
#include "onnxview/external_source.hpp"
#include "onnxview/tensor_data.hpp"
#include "output.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

// tensor_data::as_span() of the tensor's natural type: the library's own
// decision, not a restatement of it.
template <class T>
error span_error(const tensor_data& d) {
    const result<span<const T>> s = d.as_span<T>();
    return s.ok() ? error() : s.err();
}

error natural_span_error(const tensor_data& d) {
    switch (d.info().natural) {
        case natural_type::f32: return span_error<float>(d);
        case natural_type::u8: return span_error<std::uint8_t>(d);
        case natural_type::i8: return span_error<std::int8_t>(d);
        case natural_type::u16: return span_error<std::uint16_t>(d);
        case natural_type::i16: return span_error<std::int16_t>(d);
        case natural_type::i32: return span_error<std::int32_t>(d);
        case natural_type::i64: return span_error<std::int64_t>(d);
        case natural_type::boolean: return span_error<bool>(d);
        case natural_type::f64: return span_error<double>(d);
        case natural_type::u32: return span_error<std::uint32_t>(d);
        case natural_type::u64: return span_error<std::uint64_t>(d);
        case natural_type::c64: return span_error<std::complex<float>>(d);
        case natural_type::c128: return span_error<std::complex<double>>(d);
        case natural_type::string_view: break;
    }
    return error(errc::bad_data_type);
}

// Why as_span() refused, for people.
std::string copy_reason(const tensor_data& d, error e) {
    if (e.code == errc::unaligned) return "unaligned for its type";
    if (e.code == errc::not_little_endian) return "big-endian host";
    if (d.info().sub_byte()) return "sub-byte type (unpacked on read)";
    if (d.storage() == storage_kind::typed) return "typed field as varints or in several chunks";
    if (d.info().kind == element_kind::boolean) return "BOOL bytes other than 0 and 1";
    return errc_name(e.code);
}

bool aligned(std::uint64_t offset, std::uint64_t to) { return to != 0 && offset % to == 0; }

void classify_bytes(payload_group& g, const tensor_data& d, std::uint64_t offset) {
    const std::uint64_t bytes = d.describe().byte_size;
    const unsigned element = d.info().sub_byte() ? 1u : d.info().element_bytes();
    g.all.add(bytes);
    if (aligned(offset, element)) g.aligned_element.add(bytes);
    if (aligned(offset, 64)) g.aligned_64.add(bytes);
    if (aligned(offset, 4096)) g.aligned_4k.add(bytes);
    if (aligned(offset, 65536)) g.aligned_64k.add(bytes);
    const error e = natural_span_error(d);
    if (e.ok()) {
        g.zero_copy.add(bytes);
    } else {
        g.copied.add(bytes);
        ++g.copy_reasons[copy_reason(d, e)];
        if (e.code == errc::unaligned && bytes >= pack_threshold) g.packable.add(bytes);
    }
}

std::string problem_kind(errc code) {
    switch (errc_group(code)) {
        case errc::external_path_unsafe: return "unsafe_path";
        case errc::external_out_of_bounds: return "too_short";
        case errc::io_error: return "missing";
        case errc::payload_size_mismatch: return "size_mismatch";
        default: return "other";
    }
}

// The last `length` entry of an external tensor (the entry that counts, as
// for find_external_location's location and offset), else dims x element size.
std::uint64_t length_of(const tensor_view& t) {
    std::string_view length;
    bool found = false;
    for (const string_entry_view& e : t.external_data()) {
        if (e.key() != "length") continue;
        length = e.value();
        found = true;
    }
    if (found) {
        const result<std::uint64_t> v = parse_decimal(length);
        if (v) return v.value();
    }
    std::uint64_t elements = 0, bytes = 0;
    tensor_size(t, elements, bytes);
    return bytes;
}

class assessor {
public:
    explicit assessor(const char* model_path) {
        options opts{};
        set_external_source(model_path, opts);
        auto r = external_data_resolver::create(opts);
        if (r) {
            resolver_ = std::move(r.value());
            has_resolver_ = true;
        }
    }

    void tensor(const census_tensor& c, zero_copy_report& out) {
        const tensor_view& t = c.t;
        const external_location where = find_external_location(t);
        const bool external = t.data_location() == location_kind::external;
        if (external) file_of(std::string(where.location), out);
        const external_payload_source src = external_source(resolver_);
        const result<tensor_data> d = tensor_data::make(t, has_resolver_ ? &src : nullptr);
        if (!d) {
            ++out.unreadable;
            if (external) {
                char why[512];
                describe_external_error(d.err(), t, why, sizeof why);
                external_problem p{std::string(where.location), std::string(t.name()), problem_kind(d.err().code), why};
                const payload_group& g = out.external[p.location];
                if (p.kind == "too_short" && g.file_size >= 0)
                    p.message += " (the file has " + std::to_string(g.file_size) + " bytes; the tensor needs bytes " +
                                 std::to_string(where.offset) + " to " + std::to_string(where.offset + length_of(t)) + ")";
                out.problems.push_back(std::move(p));
            }
            return;
        }
        if (d->info().kind == element_kind::string) {
            ++out.strings;
            return;
        }
        if (d->empty()) {
            ++out.empty;
            return;
        }
        switch (d->storage()) {
            case storage_kind::raw: classify_bytes(out.embedded, *d, d->describe().offset); break;
            case storage_kind::external:
                classify_bytes(out.external[std::string(where.location)], *d, d->describe().offset);
                break;
            case storage_kind::typed: {
                const std::uint64_t bytes = d->describe().byte_size;
                out.typed.all.add(bytes);
                if (natural_span_error(*d).ok()) {
                    out.typed.zero_copy.add(bytes);
                } else {
                    out.typed.copied.add(bytes);
                    if (bytes >= pack_threshold) out.typed.packable.add(bytes);
                }
                break;
            }
            case storage_kind::none: ++out.empty; break;
        }
    }

private:
    // Opens the external file once, for its size and how it is held.
    void file_of(const std::string& location, zero_copy_report& out) {
        payload_group& g = out.external[location];
        if (g.file_size >= 0 || !has_resolver_) return;
        const external_entry e{"location", location};
        const auto span = resolver_.resolve(&e, 1, unknown_size);
        if (!span) return;
        g.file_size = static_cast<std::int64_t>(span->file->size());
        g.read_into_memory = span->file->kind() == mapped_file::storage::buffer;
    }

    external_data_resolver resolver_;
    bool has_resolver_ = false;
};

}  // namespace

zero_copy_report assess_payloads(const tensor_census& census, const char* model_path) {
    zero_copy_report r;
    assessor a(model_path);
    for (const census_tensor& c : census.tensors) a.tensor(c, r);
    return r;
}

}  // namespace onnxview_cli
