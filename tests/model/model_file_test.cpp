// model_file: a path in, views and tensor data (inline or external) out.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <string>
#include <vector>

#include "../io/counting_allocator.hpp"
#include "onnxview/metadata_reads.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;

namespace {
std::string testdata(const char* name) { return std::string(ONNXVIEW_SOURCE_DIR) + "/testdata/" + name; }

std::vector<double> values(model_file& mf, const tensor_view& t) {
    std::vector<double> out;
    auto d = mf.tensor(t);
    REQUIRE(d.ok());
    for (double x : d->scalars<double>()) out.push_back(x);
    return out;
}
}  // namespace

TEST_CASE("model_file reads external weights exactly as their inline twin") {
    auto ext = model_file::open(testdata("small_cnn.onnx").c_str());
    auto inl = model_file::open(testdata("small_cnn_inline.onnx").c_str());
    REQUIRE(ext.ok());
    REQUIRE(inl.ok());
    const auto a = ext->model().graph().initializer();
    const auto b = inl->model().graph().initializer();
    REQUIRE(a.size() == b.size());
    REQUIRE(a.size() > 0);
    std::size_t external = 0, compared = 0;
    auto ib = b.begin();
    for (const tensor_view& t : a) {
        const tensor_view& u = *ib;
        CHECK(t.name() == u.name());
        if (t.data_location() == location_kind::external) ++external;
        const auto x = values(ext.value(), t);
        const auto y = values(inl.value(), u);
        CHECK(x == y);
        compared += x.size();
        ++ib;
    }
    CHECK(external == 2);
    CHECK(compared > 1000);
    CHECK(ext->resolver().file_count() == 1);  // both external tensors share one file
}

TEST_CASE("model_file reports what went wrong") {
    const error missing = model_file::open("/nonexistent/model.onnx").err();
    CHECK(errc_group(missing.code) == errc::io_error);
    CHECK(missing.code == errc::io_stat_failed);
#ifdef _WIN32  // GetLastError(): ERROR_FILE_NOT_FOUND or, for a missing directory, ERROR_PATH_NOT_FOUND
    CHECK((missing.sys_errno == 2 || missing.sys_errno == 3));
#else
    CHECK(missing.sys_errno == ENOENT);
#endif
    CHECK(model_file::open(ONNXVIEW_SOURCE_DIR).err().code == errc::is_directory);
    char empty[] = "/tmp/onnxview-empty-XXXXXX";
    const int fd = mkstemp(empty);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK(model_file::open(empty).err().code == errc::file_empty);
    std::remove(empty);
}

namespace {

// A file holding `head` followed by zeros up to `size` bytes (sparse where the
// file system allows), removed on destruction.
struct temp_model {
    std::string path;
    explicit temp_model(const std::string& head, std::uint64_t size = 0) {
        char name[] = "/tmp/onnxview-model-XXXXXX";
        const int fd = mkstemp(name);
        REQUIRE(fd >= 0);
        close(fd);
        path = name;
        std::FILE* f = std::fopen(name, "wb");
        REQUIRE(f != nullptr);
        REQUIRE(std::fwrite(head.data(), 1, head.size(), f) == head.size());
        if (size > head.size()) {
            REQUIRE(std::fseek(f, static_cast<long>(size - 1), SEEK_SET) == 0);
            REQUIRE(std::fputc(0, f) == 0);
        }
        REQUIRE(std::fclose(f) == 0);
    }
    ~temp_model() { std::remove(path.c_str()); }
};

std::string varint(std::uint64_t v) {
    std::string s;
    for (; v >= 0x80; v >>= 7) s += static_cast<char>((v & 0x7F) | 0x80);
    return s + static_cast<char>(v);
}
std::string len_field(unsigned number, const std::string& payload) {
    return varint(number << 3 | 2) + varint(payload.size()) + payload;
}

// ModelProto { ir_version: 8, graph { node { <field 1 as a truncated varint> } } }:
// the top level parses, the node does not.
const std::string bad_node_model = "\x08\x08" + len_field(7, len_field(1, std::string("\x08\xff", 2)));

}  // namespace

TEST_CASE("model_file takes the model's copy and its external data from options::memory") {
    onnxview_test::counting_allocator memory;
    {
        options o;
        o.file_mode = open_mode::read;  // the model itself on the heap too
        o.memory = memory.hooks();
        auto ext = model_file::open(testdata("small_cnn.onnx").c_str(), o);
        auto inl = model_file::open(testdata("small_cnn_inline.onnx").c_str());
        REQUIRE(ext.ok());
        REQUIRE(inl.ok());
        CHECK(ext->file().kind() == mapped_file::storage::buffer);
        const auto a = ext->model().graph().initializer();
        auto b = inl->model().graph().initializer().begin();
        for (const tensor_view& t : a) {
            CHECK(values(ext.value(), t) == values(inl.value(), *b));
            ++b;
        }
        CHECK(ext->resolver().file_count() == 1);
        CHECK(memory.outstanding() >= 3);  // the model, the resolver's base and table, ...
    }
    CHECK(memory.outstanding() == 0);
    CHECK(memory.consistent());
}

TEST_CASE("model_file verify checks the whole model before the views") {
    temp_model f(bad_node_model);
    auto lazy = model_file::open(f.path.c_str());
    REQUIRE(lazy.ok());  // the top level alone is well formed
    CHECK(lazy->model_error().ok());
    CHECK(lazy->model().graph().node().begin()->err().code == errc::truncated);

    options o;
    o.verify = true;
    auto strict = model_file::open(f.path.c_str(), o);
    REQUIRE_FALSE(strict.ok());
    CHECK(strict.err().code == errc::truncated);
    CHECK(strict.err().offset == bad_node_model.size() - 1);
}

TEST_CASE("model_file keep_malformed keeps the bytes of a model that does not parse") {
    options o;
    o.verify = true;
    o.keep_malformed = true;
    temp_model nested(bad_node_model);
    auto a = model_file::open(nested.path.c_str(), o);
    REQUIRE(a.ok());
    CHECK(a->model_error().code == errc::truncated);
    CHECK(a->model_error().offset == bad_node_model.size() - 1);
    CHECK(a->bytes() == bad_node_model);
    CHECK_FALSE(a->model().has_graph());  // empty, not the malformed model

    temp_model top(std::string(11, '\xff'));  // an 11-byte varint as the first tag
    o.verify = false;
    auto b = model_file::open(top.path.c_str(), o);
    REQUIRE(b.ok());
    CHECK_FALSE(b->model_error().ok());
    CHECK(b->bytes().size() == 11);
    o.keep_malformed = false;
    CHECK(model_file::open(top.path.c_str(), o).err().code == b->model_error().code);

    // I/O errors are still errors.
    CHECK(errc_group(model_file::open("/nonexistent/model.onnx", o).err().code) == errc::io_error);
}

TEST_CASE("model_file adopt_self_contained: inline tensors as adopt() reads them, external ones refused") {
    auto whole = [](const char* name) {
        auto f = mapped_file::open(testdata(name).c_str());
        REQUIRE(f.ok());
        return std::move(f.value());
    };
    // Inline: every value equal to the full open's.
    auto full = model_file::open(testdata("small_cnn_inline.onnx").c_str());
    auto self = model_file::adopt_self_contained(whole("small_cnn_inline.onnx"));
    REQUIRE(full.ok());
    REQUIRE(self.ok());
    std::size_t compared = 0;
    auto it = full->model().graph().initializer().begin();
    for (const tensor_view& t : self->model().graph().initializer()) {
        const tensor_view& u = *it;
        CHECK(values(self.value(), t) == values(full.value(), u));
        ++it;
        ++compared;
    }
    CHECK(compared == 11);
    CHECK(self->resolver().file_count() == 0);

    // External: the tensor's storage facts are there, its data is refused
    // at the tensor, in the invalid_argument group; inline ones still read.
    auto ext = model_file::adopt_self_contained(whole("small_cnn.onnx"));
    REQUIRE(ext.ok());
    std::size_t refused = 0;
    for (const tensor_view& t : ext->model().graph().initializer()) {
        if (t.data_location() != location_kind::external) {
            CHECK(ext.value().tensor(t).ok());
            continue;
        }
        const error e = ext.value().tensor(t).err();
        CHECK(e.code == errc::external_not_opened);
        CHECK(errc_group(e.code) == errc::invalid_argument);
        CHECK(e.offset == t.wire_message().offset_of(t.wire_message().begin()));
        ++refused;
    }
    CHECK(refused == 2);
    CHECK(ext->resolver().file_count() == 0);

    // Its errors are adopt()'s.
    options o;
    o.verify = true;
    const error bad = model_file::adopt_self_contained(mapped_file::from_memory(bad_node_model.data(), bad_node_model.size()), o).err();
    CHECK(bad.code == errc::truncated);
    CHECK(bad.offset == bad_node_model.size() - 1);
    o.keep_malformed = true;
    auto kept = model_file::adopt_self_contained(mapped_file::from_memory(bad_node_model.data(), bad_node_model.size()), o);
    REQUIRE(kept.ok());
    CHECK(kept->model_error() == bad);
}

TEST_CASE("model_file sparse_tensor reads a sparse initializer as sparse_data::make") {
    auto mf = model_file::open(testdata("sparse.onnx").c_str());
    REQUIRE(mf.ok());
    std::size_t seen = 0;
    for (const sparse_tensor_view& s : mf->model().graph().sparse_initializer()) {
        auto a = mf.value().sparse_tensor(s);
        auto b = sparse_data::make(s);
        REQUIRE(a.ok() == b.ok());
        if (!a.ok()) continue;
        CHECK(a->nnz() == b->nnz());
        CHECK(a->dense_size() == b->dense_size());
        for (std::uint64_t k = 0; k < a->nnz(); ++k) {
            CHECK(a->values().double_at(k).value() == b->values().double_at(k).value());
            CHECK(a->linear_index(k).value() == b->linear_index(k).value());
        }
        ++seen;
    }
    CHECK(seen >= 2);
}

TEST_CASE("model_file model_reads::metadata reads the same values, small or big") {
    options o;
    o.reads = model_reads::metadata;
    auto small = model_file::open(testdata("small_cnn_inline.onnx").c_str(), o);
    auto plain = model_file::open(testdata("small_cnn_inline.onnx").c_str());
    REQUIRE(small.ok());
    REQUIRE(plain.ok());
    auto ib = plain->model().graph().initializer().begin();
    for (const tensor_view& t : small->model().graph().initializer()) {
        CHECK(values(small.value(), t) == values(plain.value(), *ib));
        ++ib;
    }

    // One UINT8 initializer of more than metadata_read_limits::whole_below
    // bytes, all zero: the file is advised random access, and the tensor read ahead.
    const std::uint64_t n = metadata_read_limits().whole_below + 7;
    const std::string tensor_head = "\x08" + varint(n) + "\x10\x02" + varint(9 << 3 | 2) + varint(n);
    const std::string graph_head = varint(5 << 3 | 2) + varint(tensor_head.size() + n) + tensor_head;
    const std::string head = "\x08\x08" + varint(7 << 3 | 2) + varint(graph_head.size() + n) + graph_head;
    temp_model big(head, head.size() + n);
    auto mf = model_file::open(big.path.c_str(), o);
    REQUIRE(mf.ok());
    REQUIRE(mf->bytes().size() == head.size() + n);
    const tensor_view t = *mf->model().graph().initializer().begin();
    auto d = mf.value().tensor(t);
    REQUIRE(d.ok());
    CHECK(d->size() == n);
    CHECK(d->double_at(0).value() == 0);
    CHECK(d->double_at(n - 1).value() == 0);
}

namespace {
// A model of `count` UINT8 initializers of `bytes` zeros each.
std::string many_tensors(std::size_t count, std::size_t bytes) {
    std::string graph;
    for (std::size_t i = 0; i < count; ++i)
        graph += len_field(5, "\x08" + varint(bytes) + "\x10\x02" + len_field(8, "w" + std::to_string(i)) +
                                  len_field(9, std::string(bytes, '\0')));
    return "\x08\x08" + len_field(7, graph);
}

struct run {
    const char* data;
    std::size_t size;
};
void note_run(void* user, const char* data, std::size_t size) {
    static_cast<std::vector<run>*>(user)->push_back({data, size});
}

// The resident bytes of the mapping holding `p`, from /proc/self/smaps; -1
// where there is none to read (not Linux, or an emulator's view).
long long resident_bytes_of(const void* p) {
    std::FILE* f = std::fopen("/proc/self/smaps", "r");
    if (f == nullptr) return -1;
    char line[512];
    bool inside = false;
    long long rss = -1;
    const auto at = reinterpret_cast<unsigned long long>(p);
    while (std::fgets(line, sizeof line, f) != nullptr) {
        unsigned long long begin = 0, end = 0;
        long long kib = 0;
        if (std::sscanf(line, "%llx-%llx ", &begin, &end) == 2) inside = begin <= at && at < end;
        else if (inside && std::sscanf(line, "Rss: %lld kB", &kib) == 1) rss = kib * 1024;
    }
    std::fclose(f);
    return rss;
}
}  // namespace

TEST_CASE("verify hands options::verified the bytes it has passed, in order, in runs of at least 4 MiB") {
    const std::string model = many_tensors(48, 256 * 1024);  // 12 MiB
    std::vector<run> runs;
    options o;
    o.verified = note_run;
    o.verified_user = &runs;
    REQUIRE(verify(model.data(), model.size(), schema::msg_ModelProto, o).ok());
    REQUIRE(runs.size() >= 2);
    const char* next = model.data();
    for (const run& r : runs) {
        CHECK(r.data == next);
        CHECK(r.size >= (std::size_t(4) << 20));
        next = r.data + r.size;
    }
    CHECK(next <= model.data() + model.size());
    CHECK(model.data() + model.size() - next < (std::ptrdiff_t(4) << 20));
    // Without a callback, nothing else changes.
    CHECK(verify(model.data(), model.size()).ok());
}

TEST_CASE("model_file drop_verified_pages: the pages verify() walked leave the mapping") {
    const temp_model f(many_tensors(192, 256 * 1024));  // 48 MiB, 192 tensor headers
    options o;
    o.verify = true;
    o.drop_verified_pages = true;
    auto mf = model_file::open(f.path.c_str(), o);
    REQUIRE(mf.ok());
    const long long rss = resident_bytes_of(mf->bytes().data());  // before the views read the headers again
    std::size_t initializers = 0;
    for (const tensor_view& t : mf->model().graph().initializer()) initializers += t.ok();
    REQUIRE(initializers == 192);
    if (mf->file().kind() != mapped_file::storage::mapped) return;
    if (rss < 0) {
        WARN("no /proc/self/smaps entry for the mapping: residency not checked");
        return;
    }
    // What the last run (< 4 MiB) and the system's fault-around around it
    // left, not the 48 MiB the headers are spread over.
    CHECK(rss < (16ll << 20));
}
