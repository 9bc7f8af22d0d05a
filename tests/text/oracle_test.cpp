// The printers against the real tools, run at test time:
//   text: protoc 3.21 --decode with Debian's /usr/include/onnx/onnx.proto (1.12)
//   JSON: /usr/bin/python3 + onnx + google.protobuf.json_format.MessageToJson
// Exits 77 (meson: skipped) with a message when protoc or onnx.proto is absent.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "build.hpp"
#include "onnxview/json_format.hpp"
#include "onnxview/text_format.hpp"

namespace fs = std::filesystem;
using namespace onnxview;
using namespace tb;

namespace {

const char* const proto_dir = "/usr/include/onnx";
const char* const corpus_dir = "/usr/share/libonnx-testdata";
std::string tmp_dir;

std::string read_file(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}
void write_file(const std::string& p, const std::string& data) {
    std::ofstream f(p, std::ios::binary);
    f << data;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Runs a shell command; returns (exit status, stdout).
std::pair<int, std::string> run(const std::string& cmd) {
    std::FILE* p = popen(cmd.c_str(), "r");
    if (!p) return {-1, ""};
    std::string out;
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

std::pair<int, std::string> protoc_decode(const std::string& type, const std::string& file) {
    return run(std::string("cd ") + proto_dir + " && protoc --decode=onnx." + type + " onnx.proto < " +
               shell_quote(file) + " 2>/dev/null");
}

void append(void* user, const char* d, std::size_t n) { static_cast<std::string*>(user)->append(d, n); }

std::pair<error, std::string> ours(const std::string& bytes, const std::string& type, bool json = false) {
    std::string out;
    options opt;
    opt.release = schema::release_debian_bookworm;
    const auto* m = schema::find_message(type);
    REQUIRE(m != nullptr);
    const output_sink sink{append, &out};
    const error e = json ? print_json(bytes.data(), bytes.size(), *m, sink, opt)
                         : print_text(bytes.data(), bytes.size(), *m, sink, opt);
    return {e, out};
}

// Compares one message with protoc; returns true when identical.
bool same_as_protoc(const std::string& type, const std::string& file, const std::string& bytes,
                    std::string* report) {
    const auto expected = protoc_decode(type, file);
    const auto got = ours(bytes, type);
    const bool protoc_ok = expected.first == 0;
    if (protoc_ok != got.first.ok() || (protoc_ok && expected.second != got.second) ||
        (!protoc_ok && !got.second.empty())) {
        if (report) {
            std::size_t i = 0;
            while (i < expected.second.size() && i < got.second.size() && expected.second[i] == got.second[i]) ++i;
            *report = file + ": protoc rc " + std::to_string(expected.first) + ", ours " +
                      errc_name(got.first.code) + "; first difference at output byte " + std::to_string(i) +
                      "\n  protoc: " + expected.second.substr(i > 40 ? i - 40 : 0, 120) +
                      "\n  ours:   " + got.second.substr(i > 40 ? i - 40 : 0, 120);
        }
        return false;
    }
    return true;
}

std::vector<std::string> corpus_files(bool models) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(corpus_dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        const std::string name = it->path().filename().string();
        if (models ? name == "model.onnx" : (name.size() > 3 && name.substr(name.size() - 3) == ".pb"))
            out.push_back(it->path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("corpus models print exactly as protoc --decode=onnx.ModelProto", "[oracle][corpus]") {
    const auto files = corpus_files(true);
    if (files.empty()) {
        WARN("SKIPPED: no model.onnx under " << corpus_dir << " (install onnx test data)");
        return;
    }
    std::size_t bad = 0;
    for (const auto& f : files) {
        std::string report;
        if (!same_as_protoc("ModelProto", f, read_file(f), &report)) {
            if (++bad <= 5) FAIL_CHECK(report);
        }
    }
    INFO(files.size() << " models compared");
    CHECK(bad == 0);
}

TEST_CASE("corpus test data prints exactly as protoc --decode=onnx.TensorProto", "[oracle][corpus]") {
    auto files = corpus_files(false);
    if (files.empty()) {
        WARN("SKIPPED: no .pb files under " << corpus_dir);
        return;
    }
    // Every file with ONNXVIEW_FULL_CORPUS=1, else every third (time budget).
    const std::size_t step = std::getenv("ONNXVIEW_FULL_CORPUS") ? 1 : 3;
    std::size_t bad = 0, n = 0;
    for (std::size_t i = 0; i < files.size(); i += step, ++n) {
        std::string report;
        if (!same_as_protoc("TensorProto", files[i], read_file(files[i]), &report)) {
            if (++bad <= 5) FAIL_CHECK(report);
        }
    }
    INFO(n << " .pb files compared");
    CHECK(bad == 0);
}

namespace {
std::string nest_groups(int n) {
    std::string b;
    for (int i = 0; i < n; ++i) b = G(1, b);
    return b;
}
std::string nest_len(int n, std::string inner) {
    for (int i = 0; i < n; ++i) inner = L(1, inner);
    return inner;
}
std::string nest_types(int n) {
    std::string t = L(1, V(1, 1));
    for (int i = 0; i < n; ++i) t = L(4, L(1, t));
    return t;
}
std::string all_bytes() {
    std::string s;
    for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
    return s;
}
}  // namespace

TEST_CASE("hand-built tricky inputs print exactly as protoc", "[oracle][tricky]") {
    const std::uint64_t neg1 = ~std::uint64_t(0);
    const std::vector<std::pair<std::string, std::string>> cases = {
        // unknown fields of every wire type, LEN payloads that look like messages or not
        {"ModelProto", V(1, 7) + V(100, 5) + F32bits(101, 0x12345678) + F64bits(102, 0x0123456789abcdefull) +
                           L(103, "hello") + L(104, V(1, 2) + L(2, "x")) + G(105, V(1, 1) + G(2, V(3, 4))) +
                           L(106, "") + L(107, S("\0", 1)) + L(108, "\x08") + L(109, tag(1, 4))},
        {"ModelProto", L(200, nest_len(12, "\x08\x01"))},
        {"ModelProto", L(99, "\x08\x80")},
        {"ModelProto", L(99, tag(1, 3) + tag(2, 4))},
        {"ModelProto", L(99, G(1, V(2, 3)))},
        {"ModelProto", L(99, nest_groups(9))},
        {"ModelProto", L(99, nest_groups(10))},
        {"ModelProto", L(99, nest_groups(11))},
        {"ModelProto", nest_groups(12)},
        {"ModelProto", L(99, S("\x08\x01\x00", 3))},
        {"ModelProto", V(99, neg1) + L(98, tag(1, 0) + std::string(9, '\xff') + "\x7f")},
        {"GraphProto", G(3, V(1, 5) + L(2, "zz")) + L(2, "n")},
        // merged occurrences of singular messages, last-wins scalars
        {"ModelProto", L(7, L(2, "g1") + L(1, L(4, "Add"))) + V(1, 3) + L(7, L(2, "g2") + L(1, L(4, "Mul")))},
        {"ModelProto", L(7, L(5, L(3, V(1, 1)))) + L(7, L(5, L(3, V(2, 2))) + L(2, "x")) + L(7, V(77, 1))},
        {"ModelProto", V(1, 3) + V(1, 8) + L(2, "a") + L(2, "b") + V(5, neg1)},
        {"ModelProto", L(7, "") + L(8, "")},
        {"TensorProto", L(3, V(1, 1)) + L(3, V(2, 9))},
        // closed enums: out-of-range values become unknown fields
        {"AttributeProto", L(1, "a") + V(20, 2) + V(20, 99) + V(3, 5)},
        {"AttributeProto", L(1, "a") + V(20, neg1)},
        {"AttributeProto", V(20, (1ull << 32) + 2) + V(20, (1ull << 32) + 99)},
        {"TensorProto", V(14, 1) + V(14, 2)},
        // negative int32 as 10-byte varints, packed/unpacked mixes, uint64
        {"TensorProto", V(2, static_cast<std::uint64_t>(-5)) + V(1, static_cast<std::uint64_t>(-3)) + tag(5, 2) +
                            varint(20) + varint(neg1) + varint(static_cast<std::uint64_t>(-2))},
        {"TensorProto", V(11, neg1) + tag(11, 2) + varint(3) + varint(1) + varint(2) + varint(3)},
        {"TensorProto", tag(1, 2) + varint(2) + "\x02\x03" + V(1, 4)},
        {"TensorProto", F32bits(1, 5) + V(8, 3) + V(4, 1) + L(2, "x") + F64(3, 1.0)},
        // floats and doubles
        {"AttributeProto", F32(2, 0.1f) + F32(7, 1e-30f) + F32bits(7, 0x7fc00000) + F32bits(7, 0xffc00000) +
                               F32(7, -0.0f) + F32bits(7, 0x7f800000) + F32bits(7, 0xff800000) +
                               F32bits(7, 0x7f7fffff) + F32bits(7, 0x00800000) + F32bits(7, 1) +
                               F32bits(7, 0x007fffff) + F32(7, 123456789.0f) + F32(7, 1e7f) + F32(7, 1e6f) +
                               F32(7, 0.3f) + F32(7, 100000.0f) + F32(7, 2.5e-5f) + F32(7, 16777217.0f)},
        {"TensorProto", F64(10, 0.1) + F64(10, 1e-300) + F64bits(10, 0x7ff8000000000000ull) + F64(10, -0.0) +
                            F64bits(10, 0x7ff0000000000000ull) + F64(10, 1.0 / 3) + F64(10, 1e21) + F64(10, 1e15) +
                            F64(10, 1e16) + F64bits(10, 1) + F64bits(10, 0x000fffffffffffffull) +
                            tag(10, 2) + varint(8) + std::string("\0\0\0\0\0\0\x04\x40", 8)},
        // strings and bytes: every byte, quotes, backslash, non-UTF-8 in `string` fields
        {"NodeProto", L(1, all_bytes()) + L(3, S("\0\x7f\xff\"'\\ok", 9)) + L(4, "\xc3\xa9\xe2\x82\xac") +
                          L(4, "\xc3\xa9\xff bad utf8")},
        {"AttributeProto", L(4, all_bytes()) + L(9, "") + L(9, "\x01\x02")},
        // oneofs: a member restarts after another member; denotation is outside
        {"TypeProto", L(1, V(1, 1)) + L(4, L(1, L(1, V(1, 2)))) + L(1, V(1, 3) + L(2, "")) + L(1, L(2, L(1, V(1, 5))))},
        {"TypeProto", L(1, V(1, 1)) + L(6, "d") + L(1, L(2, "")) + L(4, L(1, ""))},
        {"TensorShapeProto", L(1, V(1, 5) + L(2, "N") + L(3, "den")) + L(1, L(2, "M") + V(1, 7))},
        {"TypeProto", L(7, L(1, "d") + L(2, "n"))},  // opaque_type: unknown in non-ML 1.12
        {"NodeProto", L(8, "ov") + L(9, L(1, "k") + L(2, "v")) + L(10, L(1, "c"))},  // newer than 1.12
        // depth limit (100 nested messages accepted, 101 rejected)
        {"TypeProto", nest_types(49)},
        {"TypeProto", nest_types(50)},
        // inputs protoc rejects
        {"ModelProto", L(7, L(1, "\x0a\x05" "ab"))},
        {"TensorProto", tag(4, 2) + varint(3) + "abc"},
        {"TensorProto", tag(7, 2) + varint(2) + "\x80\x80"},
        {"ModelProto", S("\x0f\x00", 2)},
        {"ModelProto", V(1, 1) + tag(5, 4)},
        {"ModelProto", S("\x00\x01", 2)},
        {"ModelProto", V(1, 1) + "\x08"},
        {"ModelProto", G(99, V(1, 1))  + G(98, V(1, 1)).substr(0, 3)},
    };
    const std::string file = tmp_dir + "/case.bin";
    int i = 0;
    for (const auto& c : cases) {
        write_file(file, c.second);
        std::string report;
        const bool same = same_as_protoc(c.first, file, c.second, &report);
        INFO("case " << i << " (" << c.first << ")");
        if (!same) FAIL_CHECK(report);
        ++i;
    }
}

namespace {
std::string in_groups(int n, std::string inner) {
    for (int i = 0; i < n; ++i) inner = G(1, inner);
    return inner;
}
}  // namespace

// TextFormat::Printer::PrintUnknownFields starts each message's unknown fields
// with a budget of 10 (kUnknownFieldRecursionLimit). A length-delimited value
// is printed as a message only while the budget is > 0 (its contents get one
// less); a group is always printed as a group but its contents also get one
// less, so the budget can go negative under deep groups. Each known message
// starts again at 10. The cases sit on either side of each boundary.
TEST_CASE("unknown-field recursion budget matches protoc", "[oracle][tricky][budget]") {
    const std::string v = V(1, 5);
    const std::vector<std::pair<std::string, std::string>> cases = {
        // length-delimited only: 10 levels print as messages, the 11th as a string
        {"ModelProto", L(100, nest_len(8, v))},
        {"ModelProto", L(100, nest_len(9, v))},
        {"ModelProto", L(100, nest_len(10, v))},
        // a top-level group spends one: 9 levels under it, the 10th is a string
        {"ModelProto", G(100, nest_len(8, v))},
        {"ModelProto", G(100, nest_len(9, v))},
        {"ModelProto", G(100, nest_len(10, v))},
        // nested groups: each spends one, without a check (budget goes negative)
        {"ModelProto", in_groups(9, L(1, v))},
        {"ModelProto", in_groups(9, L(1, L(1, v)))},
        {"ModelProto", in_groups(10, L(1, v))},
        {"ModelProto", in_groups(11, L(1, v))},
        {"ModelProto", in_groups(12, L(1, L(1, v)) + V(2, 1)) + L(3, L(1, v))},
        // a group inside a length-delimited value spends one as well
        {"ModelProto", L(100, L(1, G(1, nest_len(6, v))))},
        {"ModelProto", L(100, L(1, G(1, nest_len(7, v))))},
        {"ModelProto", L(100, L(1, G(1, nest_len(8, v))))},
        {"ModelProto", L(100, G(1, nest_len(9, v)) + L(2, nest_len(8, v)))},
        // groups while checking whether a value parses: limited by the budget left
        {"ModelProto", L(99, L(1, in_groups(8, V(2, 3))))},
        {"ModelProto", L(99, L(1, in_groups(9, V(2, 3))))},
        {"ModelProto", L(99, L(1, in_groups(10, V(2, 3))))},
        // inside known messages the budget restarts at 10
        {"ModelProto", L(7, L(1, L(100, nest_len(9, v))))},
        {"ModelProto", L(7, L(1, L(100, nest_len(10, v))))},
        {"ModelProto", L(7, G(50, nest_len(8, v)))},
        {"ModelProto", L(7, G(50, nest_len(9, v)))},
        {"ModelProto", L(7, G(50, nest_len(10, v)))},
        {"ModelProto", L(7, L(1, G(50, G(2, nest_len(8, v)))))},
        {"ModelProto", L(7, L(1, G(50, G(2, nest_len(9, v)))))},
        {"ModelProto", G(14, L(12, nest_len(8, v))) + L(7, L(1, G(50, L(1, nest_len(9, v)))))},
    };
    const std::string file = tmp_dir + "/budget.bin";
    int i = 0;
    for (const auto& c : cases) {
        write_file(file, c.second);
        std::string report;
        const bool same = same_as_protoc(c.first, file, c.second, &report);
        INFO("case " << i << " (" << c.first << ")");
        if (!same) FAIL_CHECK(report);
        ++i;
    }
}

TEST_CASE("JSON equals MessageToJson on corpus models (parsed)", "[oracle][json]") {
    auto models = corpus_files(true);
    auto pbs = corpus_files(false);
    if (models.empty()) {
        WARN("SKIPPED: no corpus under " << corpus_dir);
        return;
    }
    if (access("/usr/bin/python3", X_OK) != 0) {
        WARN("SKIPPED: /usr/bin/python3 not found");
        return;
    }
    const char* src = std::getenv("ONNXVIEW_TEXT_TEST_DIR");
    REQUIRE(src != nullptr);
    std::string list;
    int k = 0;
    auto add = [&](const std::string& type, const std::string& f) {
        const auto r = ours(read_file(f), type, true);
        REQUIRE(r.first.ok());
        const std::string out = tmp_dir + "/j" + std::to_string(k++) + ".json";
        write_file(out, r.second);
        list += type + "\t" + f + "\t" + out + "\n";
    };
    for (std::size_t i = 0; i < models.size(); i += 10) add("ModelProto", models[i]);
    for (std::size_t i = 0; i < pbs.size(); i += 30) add("TensorProto", pbs[i]);
    write_file(tmp_dir + "/list.txt", list);
    const auto r = run("/usr/bin/python3 " + shell_quote(std::string(src) + "/json_oracle.py") + " " +
                       shell_quote(tmp_dir + "/list.txt") + " 2>&1");
    INFO(r.second);
    if (r.first == 77) {
        WARN("SKIPPED: " << r.second);
        return;
    }
    CHECK(r.first == 0);
}

int main(int argc, char** argv) {
    if (run("command -v protoc >/dev/null 2>&1").first != 0 ||
        access((std::string(proto_dir) + "/onnx.proto").c_str(), R_OK) != 0) {
        std::printf("SKIPPED: the oracle tests need protoc and %s/onnx.proto "
                    "(Debian: protobuf-compiler, libonnx-dev)\n", proto_dir);
        return 77;
    }
    char tmpl[] = "/tmp/onnxview-text-XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    tmp_dir = tmpl;
    const int rc = Catch::Session().run(argc, argv);
    std::error_code ec;
    fs::remove_all(tmp_dir, ec);
    return rc;
}
