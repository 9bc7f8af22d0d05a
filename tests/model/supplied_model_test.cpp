// Models supplied on demand (mapped_file::supplied): fetch_metadata
// (onnxview/metadata_reads.hpp) and model_file::adopt / adopt_self_contained
// over a file whose bytes arrive through a file_supplier.
//
// The property that matters: after fetch_metadata, every byte the views,
// verify(), the checker and the summary read has been fetched, and
// model_file::tensor() fetches the rest of what a tensor's data needs. The
// test's supplier copies the asked ranges from the real bytes into memory
// that holds poison until then: on POSIX hosts reserved with PROT_NONE and
// opened a page at a time (a read of a page never fetched faults), each page
// filled with the poison byte before the fetched bytes are copied in (a read
// of a byte not fetched in an opened page reads poison). Each walk is
// compared with the same walk over the real bytes, with two poisons.
#include <catch2/catch.hpp>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#define ONNXVIEW_TEST_GUARD_PAGES 1
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "../wire_builder.hpp"
#include "onnxview/check.hpp"
#include "onnxview/metadata_reads.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/traverse.hpp"
#include "onnxview/verify.hpp"
#include "summary.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;

std::string testdata_dir() { return std::string(ONNXVIEW_SOURCE_DIR) + "/testdata"; }

std::string err_text(const error& e) {
    return std::string(errc_name(e.code)) + "@" + std::to_string(e.offset) + "/" + std::to_string(e.sys_errno);
}

// --- the supplier ----------------------------------------------------------

struct fetched_range {
    std::uint64_t offset, length;
};

// The file's content is `real`; its memory is poison until the supplier is
// asked for a range. Records every call. Must outlive the files it makes.
class poisoned_source {
public:
    explicit poisoned_source(std::string real, unsigned char poison = 0xAB)
        : real_(std::move(real)), poison_(poison) {
        supplier_.fetch = fetch;
        supplier_.release = release;
        supplier_.user_data = this;
        const std::size_t n = std::max<std::size_t>(real_.size(), 1);
#ifdef ONNXVIEW_TEST_GUARD_PAGES
        const long sys_page = ::sysconf(_SC_PAGESIZE);
        page_ = sys_page > 0 ? static_cast<std::size_t>(sys_page) : 4096;
        reserved_ = (n + page_ - 1) / page_ * page_;
        void* m = ::mmap(nullptr, reserved_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            memory_ = static_cast<char*>(m);
            mapped_ = true;
            open_.assign(reserved_ / page_, false);
            return;
        }
#endif
        // No guard pages: all of it poison, readable.
        page_ = n;
        reserved_ = n;
        memory_ = new char[n];
        std::memset(memory_, poison_, n);
        open_.assign(1, true);
    }
    ~poisoned_source() {
        if (!released_) free_memory();
    }
    poisoned_source(const poisoned_source&) = delete;
    poisoned_source& operator=(const poisoned_source&) = delete;

    // The supplied file (owns the memory from here on).
    mapped_file file() {
        auto f = mapped_file::supplied(memory_, real_.size(), &supplier_);
        REQUIRE(f.ok());
        return std::move(f.value());
    }
    const std::string& real() const { return real_; }
    const char* memory() const { return memory_; }
    bool guarded() const { return mapped_; }

    std::vector<fetched_range> fetches;
    error fail;                                                 // returned from call fail_from on
    std::size_t fail_from = std::numeric_limits<std::size_t>::max();
    int releases = 0;
    int bad_calls = 0;  // ranges outside the file, calls after release

    // Bytes of [begin, end) inside some fetched range.
    std::uint64_t fetched_in(std::uint64_t begin, std::uint64_t end) const {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
        for (const fetched_range& f : fetches) {
            const std::uint64_t lo = std::max(begin, f.offset), hi = std::min(end, f.offset + f.length);
            if (hi > lo) r.emplace_back(lo, hi);
        }
        std::sort(r.begin(), r.end());
        std::uint64_t n = 0, at = begin;
        for (const auto& x : r) {
            const std::uint64_t lo = std::max(at, x.first);
            if (x.second > lo) {
                n += x.second - lo;
                at = x.second;
            }
        }
        return n;
    }
    std::uint64_t fetched_total() const { return fetched_in(0, real_.size()); }
    bool ascending() const {
        for (std::size_t i = 1; i < fetches.size(); ++i)
            if (fetches[i].offset < fetches[i - 1].offset) return false;
        return true;
    }

private:
    static error fetch(void* user, std::uint64_t offset, std::uint64_t length) {
        auto& s = *static_cast<poisoned_source*>(user);
        if (s.released_ || offset > s.real_.size() || length > s.real_.size() - offset) {
            ++s.bad_calls;
            return error(errc::invalid_argument);
        }
        const std::size_t call = s.fetches.size();
        s.fetches.push_back({offset, length});
        if (call >= s.fail_from) return s.fail;
        if (length == 0) return error();
        for (std::size_t p = offset / s.page_; p <= (offset + length - 1) / s.page_; ++p) {
            if (s.open_[p]) continue;
#ifdef ONNXVIEW_TEST_GUARD_PAGES
            if (::mprotect(s.memory_ + p * s.page_, s.page_, PROT_READ | PROT_WRITE) != 0) {
                ++s.bad_calls;
                return error(errc::out_of_memory);
            }
#endif
            std::memset(s.memory_ + p * s.page_, s.poison_, s.page_);
            s.open_[p] = true;
        }
        std::memcpy(s.memory_ + offset, s.real_.data() + offset, static_cast<std::size_t>(length));
        return error();
    }
    static void release(void* user, const void* data, std::uint64_t size) {
        auto& s = *static_cast<poisoned_source*>(user);
        if (data != s.memory_ || size != s.real_.size()) ++s.bad_calls;
        ++s.releases;
        if (!s.released_) s.free_memory();
        s.released_ = true;
    }
    void free_memory() {
#ifdef ONNXVIEW_TEST_GUARD_PAGES
        if (mapped_) {
            ::munmap(memory_, reserved_);
            return;
        }
#endif
        delete[] memory_;
    }

    std::string real_;
    unsigned char poison_;
    file_supplier supplier_;
    char* memory_ = nullptr;
    std::size_t page_ = 0, reserved_ = 0;
    bool mapped_ = false;
    bool released_ = false;
    std::vector<bool> open_;
};

// --- the walks ---------------------------------------------------------------

void add_finding(void* user, const check_finding& f) {
    auto& out = *static_cast<std::string*>(user);
    out += std::string("finding ") + (f.severity == check_severity::error ? "error " : "warning ") +
           finding_code_name(f.code) + " @" + std::to_string(f.offset) + " " + std::string(f.path) + ": " +
           std::string(f.message) + "\n";
}

std::string dims_text(const tensor_view& t) {
    std::string s = "[";
    for (std::int64_t d : t.dims()) s += std::to_string(d) + ",";
    return s + "]";
}

// Everything a metadata walk sees of the model in `bytes`, tensor numbers
// excepted: verify(), the root parse, the summary without values (every
// graph, node, attribute, value info, tensor header), the checker's
// findings and every stored tensor's place and header.
std::string metadata_walk(std::string_view bytes) {
    std::string out = "verify " + err_text(verify(bytes.data(), bytes.size())) + "\n";
    const model_view m = parse_model(bytes.data(), bytes.size());
    out += "parse " + err_text(m.err()) + "\n";
    onnxview_test::summary_options no_values;
    no_values.values = false;
    out += onnxview_test::summarize_model(bytes, testdata_dir(), no_values);
    const options none;
    const check_result c = check_model(bytes, none, add_finding, &out);
    out += "check " + std::to_string(c.errors) + " " + std::to_string(c.warnings) + "\n";
    if (m.ok()) {
        const error e = for_each_tensor(m, [&](const stored_tensor& st) {
            std::string path;
            append_tensor_path(st, path);
            const tensor_view& t = st.tensor;
            out += "tensor " + path + " '" + std::string(t.name()) + "' " + std::to_string(t.data_type()) + " " +
                   dims_text(t) + " raw " + std::to_string(t.has_raw_data()) + " loc " +
                   std::to_string(static_cast<int>(t.data_location())) + " " + err_text(t.err()) + "\n";
        });
        out += "tensors " + err_text(e) + "\n";
    }
    return out;
}

// A tensor's data: its type, size and every element (a 64-bit FNV-1a of
// their bit patterns; strings by content).
std::string data_text(const result<tensor_data>& d) {
    if (!d.ok()) return "error " + err_text(d.err());
    const tensor_data& t = d.value();
    std::string out = "type " + std::to_string(t.type()) + " size " + std::to_string(t.size()) + " storage " +
                      std::to_string(static_cast<int>(t.storage())) + " bytes " + std::to_string(t.bytes().size());
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](const void* p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            h ^= static_cast<const unsigned char*>(p)[i];
            h *= 1099511628211ull;
        }
    };
    mix(t.bytes().data(), t.bytes().size());
    std::uint64_t n = 0;
    if (t.holds<std::string_view>()) {
        for (std::string_view s : t.elements<std::string_view>()) {
            const std::uint64_t len = s.size();
            mix(&len, sizeof len);
            mix(s.data(), s.size());
            ++n;
        }
    } else {
        const auto r = t.scalars<double>();
        out += " scalars " + err_text(r.err());
        for (double x : r) {
            mix(&x, sizeof x);
            ++n;
        }
    }
    return out + " elements " + std::to_string(n) + " hash " + std::to_string(h);
}

std::string sparse_text(const result<sparse_data>& d) {
    if (!d.ok()) return "error " + err_text(d.err());
    std::string out = "nnz " + std::to_string(d->nnz()) + " dense " + std::to_string(d->dense_size()) +
                      " values " + data_text(d->values()) + " indices " + data_text(d->indices()) + " linear";
    for (std::uint64_t k = 0; k < d->nnz(); ++k) {
        const auto i = d->linear_index(k);
        out += " " + (i.ok() ? std::to_string(i.value()) : err_text(i.err()));
    }
    return out;
}

// What the text printer writes of the whole model (every field, payloads
// included).
std::string printed(std::string_view bytes) {
    std::string out;
    output_sink sink;
    sink.write = [](void* user, const char* data, std::size_t n) { static_cast<std::string*>(user)->append(data, n); };
    sink.user = &out;
    const error e = print_text(bytes.data(), bytes.size(), schema::msg_ModelProto, sink);
    return err_text(e) + "\n" + out;
}

// The stored tensors of `m` (for_each_tensor order), and its sparse ones.
struct stored {
    std::vector<tensor_view> tensors;
    std::vector<sparse_tensor_view> sparse;
};
stored stored_tensors(const model_view& m) {
    stored s;
    if (!m.ok()) return s;
    (void)for_each_tensor(m, [&](const stored_tensor& st) {
        s.tensors.push_back(st.tensor);
        if (st.sparse_part && !st.sparse_indices) s.sparse.push_back(st.sparse);
    });
    return s;
}

// The data of every stored tensor of the model in `mf`, read through it.
std::vector<std::string> tensor_texts(model_file& mf) {
    std::vector<std::string> out;
    const stored s = stored_tensors(mf.model());
    for (const tensor_view& t : s.tensors) out.push_back(data_text(mf.tensor(t)));
    for (const sparse_tensor_view& sp : s.sparse) out.push_back(sparse_text(mf.sparse_tensor(sp)));
    return out;
}

// As model_file::tensor() fetches a tensor of a supplied file: its message's bytes.
error ensure_message(const mapped_file& f, const wire::message& m) {
    const std::string_view b = m.bytes();
    if (b.empty() || !f.holds(b.data(), b.size())) return error();
    return f.ensure(static_cast<std::uint64_t>(b.data() - f.data()), b.size());
}

// The data of every stored tensor of the ModelProto in f (parsed from its
// bytes), each fetched first as model_file::tensor() does.
std::vector<std::string> tensor_texts(const mapped_file& f) {
    std::vector<std::string> out;
    const model_view m = parse_model(f.data(), f.size());
    const stored s = stored_tensors(m);
    for (const tensor_view& t : s.tensors) {
        const error e = ensure_message(f, t.wire_message());
        out.push_back(e.ok() ? data_text(tensor_data::make(t)) : "fetch " + err_text(e));
    }
    for (const sparse_tensor_view& sp : s.sparse) {
        error e;
        if (sp.has_values()) e = ensure_message(f, sp.values().wire_message());
        if (e.ok() && sp.has_indices()) e = ensure_message(f, sp.indices().wire_message());
        out.push_back(e.ok() ? sparse_text(sparse_data::make(sp)) : "fetch " + err_text(e));
    }
    return out;
}

// The same over bytes that are all there.
std::vector<std::string> tensor_texts(std::string_view bytes) {
    const mapped_file f = mapped_file::from_memory(bytes.data(), bytes.size());
    return tensor_texts(f);
}

// --- comparing texts -----------------------------------------------------------

// Where two texts differ, shortly: the first differing line of each
// (non-printable bytes escaped, cut at 300 characters); empty when equal.
std::string first_difference(const std::string& expected, const std::string& actual) {
    if (expected == actual) return std::string();
    std::size_t at = 0, line = 1;
    while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) {
        if (expected[at] == '\n') ++line;
        ++at;
    }
    auto line_of = [&](const std::string& s) {
        std::size_t b = s.rfind('\n', at == 0 ? 0 : at - 1);
        b = (b == std::string::npos || at == 0) ? 0 : b + 1;
        const std::size_t e = std::min(s.find('\n', at), s.size());
        std::string out;
        for (std::size_t i = b; i < e && out.size() < 300; ++i) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            if (c >= 0x20 && c < 0x7f) {
                out += static_cast<char>(c);
            } else {
                static const char hex[] = "0123456789abcdef";
                out += "\\x";
                out += hex[c >> 4];
                out += hex[c & 15];
            }
        }
        return out;
    };
    return "line " + std::to_string(line) + " (byte " + std::to_string(at) + ")\n  expected: " + line_of(expected) +
           "\n  actual:   " + line_of(actual);
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
}

// CHECKs that two texts are equal, reporting only where they differ.
#define CHECK_SAME_TEXT(expected, actual)                                  \
    do {                                                                   \
        const std::string difference_ = first_difference(expected, actual); \
        INFO(difference_);                                                 \
        CHECK(difference_.empty());                                        \
    } while (false)

// --- models --------------------------------------------------------------------

bool read_whole(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

// Every file under testdata/ (recursively) that verifies as a ModelProto.
std::vector<std::pair<std::string, std::string>> testdata_models() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(testdata_dir())) {
        if (!e.is_regular_file()) continue;
        std::string bytes;
        if (!read_whole(e.path().string(), bytes) || bytes.empty()) continue;
        if (!verify(bytes.data(), bytes.size()).ok() || !parse_model(bytes.data(), bytes.size()).ok()) continue;
        out.emplace_back(std::filesystem::relative(e.path(), testdata_dir()).string(), std::move(bytes));
    }
    std::sort(out.begin(), out.end());
    return out;
}

wire_builder tensor_header(const std::string& name, std::int32_t data_type, std::uint64_t count) {
    return wire_builder().field_varint(1, count).field_varint(2, static_cast<std::uint64_t>(data_type)).field_bytes(8, name);
}

// A FLOAT tensor of `bytes` bytes of raw_data (a pattern), with fields after
// the payload too.
// `bytes` bytes that differ with the seed (no seed's run of a few KiB found
// in another's) and from page to page.
std::string pattern(std::size_t bytes, unsigned seed) {
    std::string raw(bytes, '\0');
    const std::size_t step = 2 * seed + 11;
    for (std::size_t i = 0; i < bytes; ++i) raw[i] = static_cast<char>(seed + i * step + i / 4096);
    return raw;
}

wire_builder raw_tensor(const std::string& name, std::size_t bytes, unsigned seed = 1) {
    const std::string raw = pattern(bytes, seed);
    return wire_builder()
        .field_varint(1, bytes / 4)
        .field_varint(2, 1)
        .field_bytes(9, raw)
        .field_bytes(8, name)
        .field_bytes(12, "after the payload");
}

wire_builder value_info(const std::string& name, std::uint64_t n) {
    const wire_builder shape = wire_builder().field_message(1, wire_builder().field_varint(1, n));
    const wire_builder tensor_type = wire_builder().field_varint(1, 1).field_message(2, shape);
    return wire_builder().field_bytes(1, name).field_message(2, wire_builder().field_message(1, tensor_type));
}

wire_builder node(const std::string& op, std::initializer_list<std::string> in, const std::string& out,
                  const std::string& name) {
    wire_builder n;
    for (const std::string& i : in) n.field_bytes(1, i);
    return n.field_bytes(2, out).field_bytes(3, name).field_bytes(4, op);
}

// A ModelProto around `graph`: ir_version 8, opset 13.
std::string model_of(const wire_builder& graph) {
    return wire_builder()
        .field_varint(1, 8)
        .field_bytes(2, "supplied_model_test")
        .field_message(8, wire_builder().field_bytes(1, "").field_varint(2, 13))
        .field_message(7, graph)
        .str();
}

// One big initializer `w` of `weight_bytes` bytes of raw_data inline, used
// by a node; a few small nodes around it.
std::string big_weight_model(std::size_t weight_bytes) {
    const std::uint64_t n = weight_bytes / 4;
    wire_builder g;
    g.field_bytes(2, "big");
    g.field_message(11, value_info("x", n));
    g.field_message(5, raw_tensor("w", weight_bytes));
    g.field_message(1, node("Add", {"x", "w"}, "a", "add"));
    for (int i = 0; i < 20; ++i)
        g.field_message(1, node("Relu", {i == 0 ? "a" : "r" + std::to_string(i - 1)}, "r" + std::to_string(i),
                                "relu" + std::to_string(i)));
    g.field_message(12, value_info("r19", n));
    return model_of(g);
}

// Where the model `bytes` holds `part` (must be there once).
std::uint64_t where(const std::string& bytes, const std::string& part) {
    const std::size_t at = bytes.find(part);
    REQUIRE(at != std::string::npos);
    REQUIRE(bytes.find(part, at + 1) == std::string::npos);
    return at;
}

// The parts of the kitchen-sink model whose fetching is asserted.
struct sink_parts {
    std::string weight_raw, float_data, double_data, constant_raw, int64_data, doc, values_raw, indices_raw,
        unknown_payload, long_string;
};

// A model with something of everything fetch_metadata tells apart: inline
// raw_data, packed float_data and double_data (tensor numbers, skipped when
// long), packed int64_data (varints, read to be counted), a STRING tensor,
// a Constant node's tensor, a sparse initializer (values and indices read
// by the checker), a long doc_string, metadata_props, an EXTERNAL tensor's
// entries, a function, a subgraph, and unknown fields of every wire type,
// a group among them, in the ModelProto and in a node.
std::string kitchen_sink(std::size_t weight_bytes, sink_parts* parts = nullptr) {
    sink_parts p;
    const wire_builder w = raw_tensor("w", weight_bytes);
    p.weight_raw = pattern(weight_bytes, 1);
    // float_data: 8192 floats packed (32 KiB); double_data 4096 doubles (32 KiB).
    wire_builder floats, doubles, int64s;
    for (int i = 0; i < 8192; ++i) floats.fixed32(0x3f800000u + static_cast<std::uint32_t>(i) * 7);
    for (int i = 0; i < 4096; ++i) doubles.fixed64(0x4000000000000000ull + static_cast<std::uint64_t>(i) * 11);
    for (int i = 0; i < 8192; ++i) int64s.varint(static_cast<std::uint64_t>(i) * 1000003);  // about 24 KiB
    p.float_data = floats.str();
    p.double_data = doubles.str();
    p.int64_data = int64s.str();
    const wire_builder f = tensor_header("f", 1, 8192).field_bytes(4, floats.str());
    const wire_builder d = tensor_header("d", 11, 4096).field_bytes(10, doubles.str());
    const wire_builder i64 = tensor_header("i", 7, 8192).field_bytes(7, int64s.str());
    p.long_string = std::string(20 * KiB, 's');
    const wire_builder strings = tensor_header("s", 8, 3).field_bytes(6, "a").field_bytes(6, p.long_string).field_bytes(6, "c");
    const wire_builder external = tensor_header("e", 1, 4)
                                      .field_message(13, wire_builder().field_bytes(1, "location").field_bytes(2, "e.bin"))
                                      .field_message(13, wire_builder().field_bytes(1, "length").field_bytes(2, "16"))
                                      .field_varint(14, 1);
    // Sparse: 4096 FLOAT values (raw, 16 KiB), INT64 linear indices 0, 3, 6, ... (raw, 32 KiB).
    std::string values(4096 * 4, '\0'), indices(4096 * 8, '\0');
    for (std::uint32_t k = 0; k < 4096; ++k) {
        const float v = static_cast<float>(k) * 0.5f + 1;
        std::memcpy(&values[k * 4], &v, 4);
        const std::uint64_t at = 3 * static_cast<std::uint64_t>(k);
        for (int b = 0; b < 8; ++b) indices[k * 8 + b] = static_cast<char>(at >> (8 * b));
    }
    p.values_raw = values;
    p.indices_raw = indices;
    const wire_builder sparse = wire_builder()
                                    .field_message(1, tensor_header("sp", 1, 4096).field_bytes(9, values))
                                    .field_message(2, tensor_header("", 7, 4096).field_bytes(9, indices))
                                    .field_varint(3, 3 * 4096);
    // A Constant whose value is 40 KiB of raw_data.
    const wire_builder constant_t = raw_tensor("", 40 * KiB, 5);
    p.constant_raw = pattern(40 * KiB, 5);
    const wire_builder constant = node("Constant", {}, "c", "const")
                                      .field_message(5, wire_builder().field_bytes(1, "value").field_message(5, constant_t).field_varint(20, 4));
    // A node with attributes of every kind of list, a subgraph, unknown fields.
    wire_builder ints_attr = wire_builder().field_bytes(1, "ints").field_varint(20, 7);
    for (int i = 0; i < 3000; ++i) ints_attr.field_varint(8, static_cast<std::uint64_t>(i));  // unpacked, 6 KiB
    wire_builder floats_attr = wire_builder().field_bytes(1, "floats").field_varint(20, 6);
    {
        wire_builder packed;
        for (int i = 0; i < 5000; ++i) packed.fixed32(0x40000000u + static_cast<std::uint32_t>(i));
        floats_attr.field_bytes(7, packed.str());  // 20 KiB, an attribute's numbers: metadata
    }
    const wire_builder subgraph = wire_builder()
                                      .field_bytes(2, "body")
                                      .field_message(5, raw_tensor("sub_w", 24 * KiB, 9))
                                      .field_message(1, node("Identity", {"sub_w"}, "sub_out", "sub_id"))
                                      .field_message(12, value_info("sub_out", 6 * KiB));
    p.unknown_payload = std::string(17 * KiB, 'u');
    const wire_builder custom = node("Custom", {"r19"}, "custom_out", "custom")
                                    .field_bytes(7, "com.example")
                                    .field_message(5, ints_attr)
                                    .field_message(5, floats_attr)
                                    .field_message(5, wire_builder().field_bytes(1, "body").field_message(6, subgraph).field_varint(20, 5))
                                    // A tensor attribute given twice: protobuf merges the two
                                    // occurrences (the header from the first, the numbers from the second).
                                    .field_message(5, wire_builder()
                                                          .field_bytes(1, "merged")
                                                          .field_varint(20, 4)
                                                          .field_message(5, tensor_header("m", 1, 5 * KiB))
                                                          .field_message(5, wire_builder().field_bytes(9, pattern(20 * KiB, 11))))
                                    .unknown_fields(100);
    wire_builder g;
    g.field_bytes(2, "sink");
    g.field_message(11, value_info("x", weight_bytes / 4));
    g.field_message(5, w);
    g.field_message(5, f);
    g.field_message(5, d);
    g.field_message(5, i64);
    g.field_message(5, strings);
    g.field_message(5, external);
    g.field_message(15, sparse);
    g.field_message(1, constant);
    g.field_message(1, node("Add", {"x", "w"}, "a", "add"));
    for (int i = 0; i < 20; ++i)
        g.field_message(1, node("Relu", {i == 0 ? "a" : "r" + std::to_string(i - 1)}, "r" + std::to_string(i),
                                "relu" + std::to_string(i)));
    g.field_message(1, custom);
    g.field_message(12, value_info("custom_out", weight_bytes / 4));
    p.doc = std::string(20 * KiB, 'd');
    const wire_builder function = wire_builder()
                                      .field_bytes(1, "f")
                                      .field_bytes(4, "x")
                                      .field_bytes(5, "y")
                                      .field_message(7, node("Neg", {"x"}, "y", "neg"))
                                      .field_bytes(10, "local");
    const std::string model = wire_builder()
                                  .field_varint(1, 8)
                                  .field_bytes(2, "supplied_model_test")
                                  .field_message(8, wire_builder().field_bytes(1, "").field_varint(2, 13))
                                  .field_message(8, wire_builder().field_bytes(1, "com.example").field_varint(2, 1))
                                  .field_message(8, wire_builder().field_bytes(1, "local").field_varint(2, 1))
                                  .field_bytes(999, p.unknown_payload)
                                  .field_bytes(6, p.doc)
                                  .field_message(14, wire_builder().field_bytes(1, "k").field_bytes(2, "v"))
                                  .field_message(7, g)
                                  .field_message(25, function)
                                  .field_message(20, wire_builder()
                                                         .field_message(1, wire_builder().field_bytes(2, "init").field_message(5, raw_tensor("t_init", 20 * KiB, 13)))
                                                         .field_message(2, wire_builder().field_bytes(2, "algo").field_message(1, node("Identity", {"t_init"}, "t_out", "t_id"))))
                                  .unknown_fields(200)
                                  .group(300, wire_builder().field_varint(1, 1).field_bytes(2, "in a group"))
                                  .field_varint(5, 42)
                                  .str();
    if (parts != nullptr) *parts = p;
    return model;
}

// A graph occurrence appended to a model (protobuf merges it into the
// model's graph): one more initializer of `bytes` bytes, to take a model
// past metadata_read_limits::whole_below.
std::string with_big_initializer(const std::string& model, std::size_t bytes) {
    return model + wire_builder().field_message(7, wire_builder().field_message(5, raw_tensor("zz_big", bytes, 3))).str();
}

metadata_read_limits scan_limits(std::uint64_t payload_from) {
    metadata_read_limits l;
    l.whole_below = 0;
    l.payload_from = payload_from;
    return l;
}

// fetch_metadata over `bytes` supplied with `poison`: the walks equal those
// of the real bytes; then each tensor fetched gives the real data; then,
// everything of every tensor fetched, the printer's text is the real one.
void check_fetched_walks(const std::string& bytes, const metadata_read_limits& limits, unsigned char poison) {
    const std::string expected_walk = metadata_walk(bytes);
    poisoned_source src(bytes, poison);
    {
        const mapped_file f = src.file();
        const error e = fetch_metadata(f, limits);
        REQUIRE(e.ok());
        CHECK(src.ascending());
        CHECK(src.bad_calls == 0);
        CHECK_SAME_TEXT(expected_walk, metadata_walk(f.bytes()));
        CHECK_SAME_TEXT(joined(tensor_texts(bytes)), joined(tensor_texts(f)));
        CHECK_SAME_TEXT(printed(bytes), printed(f.bytes()));
    }
    CHECK(src.releases == 1);
}

// adopt_self_contained over `bytes` supplied, model_reads::metadata: the
// walks of the model_file equal those of the real bytes, and so do its
// tensors' data. (Not the printer's text: megabytes of escaped payload,
// slow; check_fetched_walks compares it.)
void check_adopted(const std::string& bytes, unsigned char poison, bool verify_first = false) {
    options o;
    o.reads = model_reads::metadata;
    o.verify = verify_first;
    auto real = model_file::adopt_self_contained(mapped_file::from_memory(bytes.data(), bytes.size()), o);
    poisoned_source src(bytes, poison);
    {
        auto mf = model_file::adopt_self_contained(src.file(), o);
        REQUIRE(mf.ok() == real.ok());
        if (!mf.ok()) {
            CHECK(mf.err() == real.err());
            return;
        }
        CHECK(mf->file().on_demand());
        CHECK(src.ascending());
        CHECK_SAME_TEXT(metadata_walk(bytes), metadata_walk(mf->bytes()));
        CHECK_SAME_TEXT(joined(tensor_texts(real.value())), joined(tensor_texts(mf.value())));
        CHECK(src.bad_calls == 0);
    }
    CHECK(src.releases == 1);
}

}  // namespace

TEST_CASE("supplied model: the test's supplier: poison until fetched, a page never fetched faults", "[supplied]") {
    const std::string bytes = pattern(3 * 65536 + 100, 7);
    poisoned_source src(bytes, 0xAB);
    const mapped_file f = src.file();
    REQUIRE(f.ensure(70000, 10).ok());
    CHECK(f.bytes().substr(70000, 10) == bytes.substr(70000, 10));
    CHECK(f.bytes()[69999] == '\xAB');  // in a page fetched from, not fetched itself
    CHECK(f.bytes()[70010] == '\xAB');
    CHECK(src.fetched_in(0, bytes.size()) == 10);
    CHECK(src.fetched_in(70005, 80000) == 5);
    REQUIRE(f.ensure(0, 0).ok());
    CHECK(f.bytes() == bytes);
    CHECK(src.fetched_total() == bytes.size());
#ifdef ONNXVIEW_TEST_GUARD_PAGES
    REQUIRE(src.guarded());
    poisoned_source other(bytes);
    const mapped_file g = other.file();
    REQUIRE(g.ensure(0, 10).ok());
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::signal(SIGSEGV, SIG_DFL);  // Catch2 and sanitizers install their own handlers
        std::signal(SIGBUS, SIG_DFL);
        volatile char c = g.data()[2 * 65536];  // a page never fetched
        (void)c;
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK((WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS));
#endif
}

TEST_CASE("supplied model: every testdata model, its metadata fetched, walks as the real bytes", "[supplied]") {
    const auto models = testdata_models();
    REQUIRE(models.size() >= 9);
    for (const auto& [name, bytes] : models) {
        for (const std::uint64_t payload_from : {std::uint64_t(1), std::uint64_t(16), std::uint64_t(256),
                                                 metadata_read_limits().payload_from}) {
            for (const unsigned char poison : {0xAB, 0x00}) {
                INFO(name << ", payload_from " << payload_from << ", poison " << int(poison));
                check_fetched_walks(bytes, scan_limits(payload_from), poison);
            }
        }
    }
}

TEST_CASE("supplied model: every testdata model adopted from a supplier, small and made big", "[supplied]") {
    for (const auto& [name, bytes] : testdata_models()) {
        INFO(name);
        // Under whole_below: one fetch of the whole file.
        {
            poisoned_source src(bytes);
            options o;
            o.reads = model_reads::metadata;
            auto mf = model_file::adopt_self_contained(src.file(), o);
            REQUIRE(mf.ok());
            REQUIRE(src.fetches.size() == 1);
            CHECK(src.fetches[0].offset == 0);
            CHECK(src.fetches[0].length == bytes.size());
        }
        // Past whole_below (an initializer of 5 MiB merged into its graph):
        // scanned, the big payload left out.
        const std::string big = with_big_initializer(bytes, 5 * MiB);
        check_adopted(big, 0xAB);
        check_adopted(big, 0x00, true);  // verified first
        poisoned_source src(big);
        options o;
        o.reads = model_reads::metadata;
        auto mf = model_file::adopt_self_contained(src.file(), o);
        REQUIRE(mf.ok());
        CHECK(src.fetched_total() < bytes.size() + 64 * KiB);
    }
}

TEST_CASE("supplied model: built models walk as their real bytes", "[supplied]") {
    const std::string small_sink = kitchen_sink(64 * KiB);
    const std::string big_sink = kitchen_sink(5 * MiB);
    const std::string big = big_weight_model(1 * MiB);
    REQUIRE(verify(small_sink.data(), small_sink.size()).ok());
    for (const std::string* bytes : {&small_sink, &big}) {
        for (const std::uint64_t payload_from : {std::uint64_t(1), std::uint64_t(100), metadata_read_limits().payload_from}) {
            for (const unsigned char poison : {0xAB, 0x00}) {
                INFO("model of " << bytes->size() << " bytes, payload_from " << payload_from << ", poison " << int(poison));
                check_fetched_walks(*bytes, scan_limits(payload_from), poison);
            }
        }
    }
    check_adopted(big_sink, 0xAB);
    check_adopted(big_sink, 0x00, true);
}

TEST_CASE("fetch_metadata: a big inline raw_data is not fetched, the metadata around it is", "[supplied]") {
    const std::string bytes = big_weight_model(1 * MiB);
    REQUIRE(bytes.size() > 1 * MiB);
    REQUIRE(bytes.size() < metadata_read_limits().whole_below);
    const std::string raw = pattern(1 * MiB, 1);
    const std::uint64_t at = where(bytes, raw);
    SECTION("scanned (whole_below 0): the payload is left out") {
        poisoned_source src(bytes);
        const mapped_file f = src.file();
        REQUIRE(fetch_metadata(f, scan_limits(metadata_read_limits().payload_from)).ok());
        CHECK(src.fetched_total() < 64 * KiB);
        CHECK(src.fetched_in(at, at + raw.size()) < 16);  // at most what a field head's 15 bytes reach
        CHECK(src.ascending());
        // Every byte outside it is fetched (this model is all metadata but the payload).
        CHECK(src.fetched_in(0, at) == at);
        CHECK(src.fetched_in(at + raw.size(), bytes.size()) == bytes.size() - at - raw.size());
        // The tensor's data, then, through model_file's fetch.
        const model_view m = parse_model(f.data(), f.size());
        REQUIRE(m.ok());
        const tensor_view w = *m.graph().initializer().begin();
        REQUIRE(w.name() == "w");
        REQUIRE(ensure_message(f, w.wire_message()).ok());
        const auto d = tensor_data::make(w);
        REQUIRE(d.ok());
        CHECK((d->bytes() == raw));
    }
    SECTION("under whole_below: one fetch of the whole file") {
        poisoned_source src(bytes);
        const mapped_file f = src.file();
        REQUIRE(fetch_metadata(f).ok());
        REQUIRE(src.fetches.size() == 1);
        CHECK(src.fetches[0].offset == 0);
        CHECK(src.fetches[0].length == bytes.size());
    }
    SECTION("past whole_below with the default limits, through adopt and adopt_self_contained") {
        const std::string bigger = big_weight_model(6 * MiB);
        REQUIRE(bigger.size() > metadata_read_limits().whole_below);
        for (const bool self_contained : {true, false}) {
            INFO("self_contained " << self_contained);
            poisoned_source src(bigger);
            options o;
            o.reads = model_reads::metadata;
            auto mf = self_contained ? model_file::adopt_self_contained(src.file(), o) : model_file::adopt(src.file(), o);
            REQUIRE(mf.ok());
            CHECK(src.fetched_total() < 64 * KiB);
            CHECK(mf->model().graph().node().size() == 21);
            const std::size_t calls = src.fetches.size();
            const tensor_view w = *mf->model().graph().initializer().begin();
            const auto d = mf.value().tensor(w);
            REQUIRE(d.ok());
            CHECK(d->size() == 6 * MiB / 4);
            CHECK(src.fetches.size() == calls + 1);  // the tensor's bytes, in one call
            CHECK(src.fetched_total() > 6 * MiB);
            CHECK_SAME_TEXT(data_text(d), data_text(tensor_data::make(*parse_model(bigger.data(), bigger.size()).graph().initializer().begin())));
        }
    }
    SECTION("without model_reads::metadata the file is fetched whole, in one call") {
        const std::string bigger = big_weight_model(6 * MiB);
        for (const bool self_contained : {true, false}) {
            poisoned_source src(bigger);
            auto mf = self_contained ? model_file::adopt_self_contained(src.file()) : model_file::adopt(src.file());
            REQUIRE(mf.ok());
            REQUIRE(src.fetches.size() == 1);
            CHECK(src.fetches[0].offset == 0);
            CHECK(src.fetches[0].length == bigger.size());
        }
    }
}

TEST_CASE("fetch_metadata: what is fetched of each part of a model", "[supplied]") {
    sink_parts p;
    const std::string bytes = kitchen_sink(1 * MiB, &p);
    poisoned_source src(bytes);
    const mapped_file f = src.file();
    REQUIRE(fetch_metadata(f, scan_limits(metadata_read_limits().payload_from)).ok());
    CHECK(src.ascending());
    auto fetched = [&](const std::string& part) {
        const std::uint64_t at = where(bytes, part);
        return src.fetched_in(at, at + part.size());
    };
    // Tensor numbers, left to tensor(): at most a field head's reach of each.
    CHECK(fetched(p.weight_raw) < 16);
    CHECK(fetched(p.float_data) < 16);
    CHECK(fetched(p.double_data) < 16);
    CHECK(fetched(p.constant_raw) < 16);
    // Read by the views or the checker: all of it.
    CHECK(fetched(p.int64_data) == p.int64_data.size());      // varints, counted by the checker
    CHECK(fetched(p.values_raw) == p.values_raw.size());      // a sparse tensor's values ...
    CHECK(fetched(p.indices_raw) == p.indices_raw.size());    // ... and indices
    CHECK(fetched(p.doc) == p.doc.size());                    // a string
    CHECK(fetched(p.unknown_payload) == p.unknown_payload.size());  // an unknown field
    // The group of the ModelProto, and the fields after it.
    const std::uint64_t group_at = where(bytes, "in a group");
    CHECK(src.fetched_in(group_at, bytes.size()) == bytes.size() - group_at);
    // Little else: the numbers are most of the file.
    const std::uint64_t numbers = p.weight_raw.size() + p.float_data.size() + p.double_data.size() + p.constant_raw.size();
    CHECK(src.fetched_total() <= bytes.size() - numbers + 64);
    CHECK(src.fetched_total() < bytes.size() - numbers + p.long_string.size() + 64);
}

TEST_CASE("fetch_metadata: unknown fields and groups in the ModelProto are fetched, the views skip them", "[supplied]") {
    // ModelProto { ir_version, unknown fields of each non-group wire type,
    // graph { node with a group, ..., w (32 KiB raw_data) }, a group,
    // producer_name }.
    const std::string payload(20 * KiB, 'p');
    const std::string raw = pattern(32 * KiB, 1);
    const wire_builder graph = wire_builder()
                                   .field_bytes(2, "g")
                                   .field_message(1, node("Relu", {"x"}, "y", "n").group(50, wire_builder().field_bytes(1, payload)).field_bytes(6, "node doc"))
                                   .field_message(11, value_info("x", 4))
                                   .field_message(12, value_info("y", 4))
                                   .field_message(5, raw_tensor("w", raw.size()));
    const std::string bytes = wire_builder()
                                  .field_varint(1, 8)
                                  .field_varint(100, 0xFFFFFFFFFFFFFFFFull)
                                  .field_fixed64(101, 0x0123456789ABCDEFull)
                                  .field_bytes(102, "unknown")
                                  .field_bytes(103, std::string(17 * KiB, 'u'))
                                  .field_fixed32(104, 0xDEADBEEFu)
                                  .field_message(8, wire_builder().field_bytes(1, "").field_varint(2, 13))
                                  .field_message(7, graph)
                                  .group(200, wire_builder().field_fixed32(1, 7).field_bytes(2, payload))
                                  .field_bytes(2, "producer after the group")
                                  .str();
    REQUIRE(verify(bytes.data(), bytes.size()).ok());
    const model_view real = parse_model(bytes.data(), bytes.size());
    REQUIRE(real.ok());
    REQUIRE(real.producer_name() == "producer after the group");
    for (const unsigned char poison : {0xAB, 0x00}) {
        for (const std::uint64_t payload_from : {std::uint64_t(1), std::uint64_t(64), metadata_read_limits().payload_from}) {
            INFO("poison " << int(poison) << ", payload_from " << payload_from);
            check_fetched_walks(bytes, scan_limits(payload_from), poison);
        }
    }
    poisoned_source src(bytes);
    const mapped_file f = src.file();
    REQUIRE(fetch_metadata(f, scan_limits(metadata_read_limits().payload_from)).ok());
    // The unknown fields, long or short, are fetched whole ...
    const std::uint64_t unknown_at = where(bytes, "unknown");
    CHECK(src.fetched_in(unknown_at, unknown_at + 7) == 7);
    const std::uint64_t long_at = where(bytes, std::string(17 * KiB, 'u'));
    CHECK(src.fetched_in(long_at, long_at + 17 * KiB) == 17 * KiB);
    // ... and so are the node's group and the model's group with what follows it.
    const std::uint64_t first = bytes.find(payload), second = bytes.find(payload, first + payload.size());
    REQUIRE(second != std::string::npos);
    CHECK(src.fetched_in(first, first + payload.size()) == payload.size());
    CHECK(src.fetched_in(second, bytes.size()) == bytes.size() - second);
    // The scan went on past the unknown fields: w's numbers are left out.
    const std::uint64_t raw_at = where(bytes, raw);
    CHECK(src.fetched_in(raw_at, raw_at + raw.size()) < 16);
    const model_view m = parse_model(f.data(), f.size());
    REQUIRE(m.ok());
    CHECK(m.producer_name() == "producer after the group");
    CHECK(m.graph().node().begin()->doc_string() == "node doc");

    // A group before the graph: the walks are still the real bytes'.
    const std::string group_first = wire_builder()
                                        .field_varint(1, 8)
                                        .unknown_fields(100)
                                        .field_message(7, graph)
                                        .field_bytes(2, "producer")
                                        .str();
    REQUIRE(verify(group_first.data(), group_first.size()).ok());
    for (const unsigned char poison : {0xAB, 0x00}) {
        INFO("group first, poison " << int(poison));
        check_fetched_walks(group_first, scan_limits(metadata_read_limits().payload_from), poison);
        check_fetched_walks(group_first, scan_limits(1), poison);
    }
}

TEST_CASE("supplied model: a supplier that fails fails the adopt with its error", "[supplied]") {
    const std::string bytes = kitchen_sink(5 * MiB);
    const error failure(errc::remote_failed, 77, 503);
    // How many calls a successful metadata fetch makes.
    std::size_t calls = 0;
    {
        poisoned_source src(bytes);
        options o;
        o.reads = model_reads::metadata;
        REQUIRE(model_file::adopt_self_contained(src.file(), o).ok());
        calls = src.fetches.size();
        REQUIRE(calls > 20);
    }
    for (const bool self_contained : {true, false}) {
        for (const model_reads reads : {model_reads::metadata, model_reads::everything}) {
            // The first call, then (metadata) each later one in turn.
            const std::size_t last = reads == model_reads::metadata ? calls : 1;
            for (std::size_t fail_from = 0; fail_from < last; ++fail_from) {
                INFO("self_contained " << self_contained << ", reads " << int(reads) << ", failing from call " << fail_from);
                poisoned_source src(bytes);
                src.fail = failure;
                src.fail_from = fail_from;
                options o;
                o.reads = reads;
                {
                    auto mf = self_contained ? model_file::adopt_self_contained(src.file(), o) : model_file::adopt(src.file(), o);
                    REQUIRE_FALSE(mf.ok());
                    CHECK(mf.err() == failure);
                    CHECK(mf.err().sys_errno == 503);
                    CHECK(src.fetches.size() == fail_from + 1);  // nothing asked after the failure
                }
                CHECK(src.releases == 1);
            }
        }
    }
    // fetch_metadata itself returns it.
    poisoned_source src(bytes);
    src.fail = failure;
    src.fail_from = 3;
    const mapped_file f = src.file();
    CHECK(fetch_metadata(f) == failure);
}

TEST_CASE("supplied model: tensor() and sparse_tensor() fetch, and return the supplier's error", "[supplied]") {
    const std::string bytes = kitchen_sink(5 * MiB);
    const std::string expected_walk = metadata_walk(bytes);
    poisoned_source src(bytes);
    options o;
    o.reads = model_reads::metadata;
    auto mf = model_file::adopt_self_contained(src.file(), o);
    REQUIRE(mf.ok());
    CHECK(src.fetched_total() < 256 * KiB);
    const stored s = stored_tensors(mf->model());
    REQUIRE(s.tensors.size() >= 10);
    REQUIRE(s.sparse.size() == 1);
    src.fail = error(errc::remote_changed, 5);
    src.fail_from = src.fetches.size();
    const tensor_view& w = s.tensors.front();
    REQUIRE(w.name() == "w");
    CHECK(mf.value().tensor(w).err() == src.fail);
    CHECK(mf.value().sparse_tensor(s.sparse.front()).err() == src.fail);
    // Once the supplier recovers, the data is the real data.
    src.fail_from = std::numeric_limits<std::size_t>::max();
    auto real = model_file::adopt_self_contained(mapped_file::from_memory(bytes.data(), bytes.size()), o);
    REQUIRE(real.ok());
    CHECK_SAME_TEXT(joined(tensor_texts(real.value())), joined(tensor_texts(mf.value())));
    CHECK_SAME_TEXT(expected_walk, metadata_walk(mf->bytes()));
    // An EXTERNAL tensor of a self-contained model is refused, fetched or not.
    bool external = false;
    for (const tensor_view& t : s.tensors) {
        if (t.data_location() != location_kind::external) continue;
        external = true;
        CHECK(mf.value().tensor(t).err().code == errc::external_not_opened);
    }
    CHECK(external);
}

TEST_CASE("supplied model: a truncated model fails as its real bytes do", "[supplied]") {
    const std::string whole = kitchen_sink(64 * KiB);
    // Cuts everywhere in the first 4 KiB (headers, the unknown fields), then
    // every 499th byte (inside payloads, heads and lengths).
    std::vector<std::size_t> cuts;
    for (std::size_t n = 1; n < 4096; n += 7) cuts.push_back(n);
    for (std::size_t n = 4096; n < whole.size(); n += 499) cuts.push_back(n);
    for (const std::size_t n : cuts) {
        const std::string bytes = whole.substr(0, n);
        INFO("cut at " << n << " of " << whole.size());
        // Scanned: the walks (their errors included) are the real bytes'.
        check_fetched_walks(bytes, scan_limits(metadata_read_limits().payload_from), 0xAB);
    }
    // Past whole_below, through adopt_self_contained, verified or not.
    const std::string big = kitchen_sink(5 * MiB);
    sink_parts p;
    (void)kitchen_sink(5 * MiB, &p);
    const std::size_t raw_at = where(big, p.weight_raw);
    for (const std::size_t n : {std::size_t(3), std::size_t(100), raw_at - 2, raw_at + 1000, raw_at + p.weight_raw.size() + 10,
                                big.size() - 5000, big.size() - 1}) {
        const std::string bytes = big.substr(0, n);
        for (const bool verify_first : {false, true}) {
            for (const bool keep : {false, true}) {
                INFO("cut at " << n << ", verify " << verify_first << ", keep_malformed " << keep);
                options o;
                o.reads = model_reads::metadata;
                o.verify = verify_first;
                o.keep_malformed = keep;
                auto real = model_file::adopt_self_contained(mapped_file::from_memory(bytes.data(), bytes.size()), o);
                poisoned_source src(bytes);
                auto mf = model_file::adopt_self_contained(src.file(), o);
                REQUIRE(mf.ok() == real.ok());
                if (!mf.ok()) {
                    CHECK(mf.err() == real.err());
                    continue;
                }
                CHECK(mf->model_error() == real->model_error());
                CHECK_SAME_TEXT(metadata_walk(bytes), metadata_walk(mf->bytes()));
            }
        }
    }
}

TEST_CASE("fetch_metadata: other storage has nothing to fetch", "[supplied]") {
    const std::string bytes = big_weight_model(64 * KiB);
    const mapped_file borrowed = mapped_file::from_memory(bytes.data(), bytes.size());
    CHECK(fetch_metadata(borrowed).ok());
    CHECK(fetch_metadata(borrowed, scan_limits(1)).ok());
    CHECK(fetch_metadata(mapped_file()).ok());
}

TEST_CASE("supplied model: adopt resolves external data next to opts.model_path", "[supplied]") {
    // small_cnn.onnx keeps two tensors in small_cnn.weights: a supplied
    // model (made big, so that it is scanned) reads them from the disk.
    const std::string path = testdata_dir() + "/small_cnn.onnx";
    std::string bytes;
    REQUIRE(read_whole(path, bytes));
    const std::string big = with_big_initializer(bytes, 5 * MiB);
    options o;
    o.reads = model_reads::metadata;
    o.model_path = path.c_str();
    auto real = model_file::adopt(mapped_file::from_memory(big.data(), big.size()), o);
    REQUIRE(real.ok());
    poisoned_source src(big);
    {
        auto mf = model_file::adopt(src.file(), o);
        REQUIRE(mf.ok());
        CHECK(src.fetched_total() < bytes.size() + 64 * KiB);
        const std::vector<std::string> texts = tensor_texts(mf.value());
        CHECK_SAME_TEXT(joined(tensor_texts(real.value())), joined(texts));
        std::size_t external = 0;
        for (const tensor_view& t : mf->model().graph().initializer()) external += t.data_location() == location_kind::external;
        CHECK(external == 2);
        CHECK(mf->resolver().file_count() == 1);
        for (const std::string& t : texts) CHECK(t.rfind("error", 0) != 0);
        options checked = o;
        std::string findings, expected;
        (void)check_model(mf->bytes(), checked, add_finding, &findings);
        (void)check_model(big, checked, add_finding, &expected);
        CHECK_SAME_TEXT(expected, findings);
    }
    CHECK(src.releases == 1);
}

TEST_CASE("fetch_metadata: a file that is no model costs its first field head, not its size", "[supplied]") {
    // What a URL may hold instead of a model: 8 MiB of bytes whose first
    // field is malformed (wire type 7), or a length running past the end.
    for (const std::string& head : {std::string("\x0f", 1), std::string("\x0a\xff\xff\xff\xff\x0f", 6)}) {
        std::string bytes = head + pattern(8 * MiB, 3);
        poisoned_source src(bytes);
        mapped_file f = src.file();
        REQUIRE(fetch_metadata(f).ok());
        CHECK(src.fetched_total() < 64 * KiB);
        // The views stop where the scan did: the same error as the real bytes give.
        const model_view m = parse_model(f.data(), f.size());
        const model_view real = parse_model(bytes.data(), bytes.size());
        CHECK(m.err().code == real.err().code);
        CHECK(m.err().offset == real.err().offset);
        CHECK(!m.ok());
    }
}
