// The public checker API (onnxview/check.hpp), called directly: every kind of
// finding check_model() reports, each with its code, severity and exact path,
// built from one small valid model changed in one place. A valid model, and
// the things onnx.checker allows (outer-scope references from subgraphs,
// omitted optional inputs, empty tensors), give no findings.
//
// Where python3-onnx is installed (ONNXVIEW_ORACLE_PYTHON, set by meson to
// /usr/bin/python3), the last test writes every case to a file and runs
// onnx.checker.check_model on it: each case records whether onnx 1.12
// rejects it too, or whether onnxview is deliberately stricter.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../new_counter.hpp"
#include "../tally_memory.hpp"
#include "../wire_builder.hpp"
#include "check_cases.hpp"
#include "onnxview/check.hpp"

#ifndef _WIN32
#include <unistd.h>
#endif

using namespace onnxview;
using namespace onnxview::check_test;
using onnxview::testing::wire_builder;

namespace {

struct finding {
    check_severity severity;
    std::string code, path, message;
    std::uint64_t offset;
};

bool operator==(const finding& a, const finding& b) {
    return a.severity == b.severity && a.code == b.code && a.path == b.path && a.message == b.message &&
           a.offset == b.offset;
}

std::vector<finding> collect(const std::string& bytes, const options& o, check_result& r) {
    std::vector<finding> out;
    r = check_model(bytes, o, [](void* user, const check_finding& f) {
        onnxview_test::pause_counting_new paused;  // the test's own copies
        static_cast<std::vector<finding>*>(user)->push_back(
            finding{f.severity, finding_code_name(f.code), std::string(f.path), std::string(f.message), f.offset});
    }, &out);
    return out;
}

// Runs the checker twice: with the default memory, and with options::memory
// set, where every allocation must go through the hooks (none through the
// global operator new), come back, and change nothing in the findings.
std::vector<finding> run_check(const std::string& bytes, const options& o = options{},
                               check_result* result = nullptr) {
    check_result r;
    const std::vector<finding> out = collect(bytes, o, r);
    std::uint64_t errors = 0, warnings = 0;
    for (const finding& f : out) (f.severity == check_severity::error ? errors : warnings)++;
    CHECK(r.errors == errors);  // the counts match the callbacks
    CHECK(r.warnings == warnings);
    if (result) *result = r;

    onnxview_test::tally_memory memory;
    options with_memory = o;
    with_memory.memory = memory.hooks();
    check_result r2;
    std::vector<finding> out2;
    const unsigned long before = onnxview_test::new_calls();
    {
        onnxview_test::counting_new counting;
        out2 = collect(bytes, with_memory, r2);
    }
    CHECK(onnxview_test::new_calls() == before);
    CHECK(memory.live_blocks == 0);
    CHECK(memory.live_bytes == 0);
    CHECK(out2 == out);
    CHECK(r2.errors == r.errors);
    CHECK(r2.warnings == r.warnings);
    return out;
}

std::string show(const std::vector<finding>& fs) {
    std::string s;
    for (const finding& f : fs)
        s += std::string(f.severity == check_severity::error ? "error " : "warning ") + f.code + " at " + f.path +
             ": " + f.message + "\n";
    return s.empty() ? "(no findings)" : s;
}


bool has(const std::vector<finding>& fs, const char* code, const char* path, check_severity s) {
    for (const finding& f : fs)
        if (f.code == std::string_view(code) && f.path == path && f.severity == s) return true;
    return false;
}

}  // namespace

TEST_CASE("check: the base model is valid, with and without warnings") {
    const std::string bytes = model_spec().build();
    check_result r;
    CHECK(run_check(bytes, options{}, &r).empty());
    CHECK(r.ok());
    CHECK_FALSE(r.truncated);
}

TEST_CASE("check: every kind of finding, with its path") {
    for (const check_case& c : cases()) {
        DYNAMIC_SECTION(c.id) {
            const auto fs = run_check(c.model);
            INFO(show(fs));
            if (c.code == nullptr) {
                CHECK(fs.empty());
                continue;
            }
            CHECK(has(fs, c.code, c.path, c.severity));
            if (c.only) CHECK(fs.size() == 1);
            // Offsets point inside the model; each code has one severity (check.hpp).
            for (const finding& f : fs) {
                CHECK(f.offset <= c.model.size());
                const bool warning_code = f.code == "new_ir_version" || f.code == "duplicate_opset" ||
                                          f.code == "ref_attr_outside_function" ||
                                          f.code == "external_data_ignored" || f.code == "external_not_checked";
                CHECK(warning_code == (f.severity == check_severity::warning));
            }
        }
    }
}

TEST_CASE("check: codes and paths are stable for the reference case") {
    // The finding the CLI test also checks, with its whole message.
    model_spec m;
    m.graph.nodes[1] = node({"t", "missing"}, {"y"}, "Add", "conv1");
    const auto fs = run_check(m.build());
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "undefined_input");
    CHECK(fs[0].path == "graph.node[1] 'conv1'.input[1]");
    CHECK(fs[0].message.rfind("input 'missing' of 'Add' node", 0) == 0);
    CHECK(fs[0].severity == check_severity::error);
    CHECK(fs[0].offset > 0);
}

TEST_CASE("check: names with control bytes are escaped in paths") {
    model_spec m;
    m.graph.nodes[1] = node({"u"}, {"y"}, "Neg", std::string_view("n'\n", 3));
    const auto fs = run_check(m.build());
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].path == "graph.node[1] 'n\\x27\\x0a'.input[0]");
}

TEST_CASE("check: options") {
    SECTION("warnings = false drops warnings, keeps errors") {
        model_spec m;
        m.ir = 99;
        m.metadata = {{"k", "1"}, {"k", "2"}};
        options o{};
        CHECK(run_check(m.build(), o).size() == 2);
        o.errors_only = true;
        check_result r;
        const auto fs = run_check(m.build(), o, &r);
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].code == "duplicate_metadata_key");
        CHECK(r.warnings == 0);
    }
    SECTION("max_findings stops the check") {
        model_spec m;
        m.graph.nodes = {node({"a"}, {"t"}, "Relu", "r"), node({"b"}, {"y"}, "Neg", "n")};
        options o{};
        check_result r;
        CHECK(run_check(m.build(), o, &r).size() == 2);
        CHECK_FALSE(r.truncated);
        o.max_findings = 1;
        CHECK(run_check(m.build(), o, &r).size() == 1);
        CHECK(r.truncated);
        CHECK(r.errors == 1);
    }
    SECTION("max_graph_depth bounds subgraph nesting") {
        graph_spec inner;
        inner.name = "inner";
        inner.inputs.clear();
        inner.outputs = {value_info("b")};
        inner.nodes = {node({"t"}, {"b"}, "Identity", "ii")};
        graph_spec middle;
        middle.name = "middle";
        middle.inputs.clear();
        middle.outputs = {value_info("a")};
        middle.nodes = {with_attr(node({"x"}, {"a"}, "Loop", "l"), attr_g("body", inner.build()))};
        model_spec m;
        m.graph.nodes[1] = with_attr(node({"t"}, {"y"}, "Loop", "outer"), attr_g("body", middle.build()));
        options o{};
        CHECK(run_check(m.build(), o).empty());
        o.max_graph_depth = 2;
        CHECK(run_check(m.build(), o).empty());
        o.max_graph_depth = 1;
        const auto fs = run_check(m.build(), o);
        INFO(show(fs));
        CHECK(has(fs, "too_deep", "graph.node[1] 'outer'.attribute[0] 'body'.g.node[0] 'l'.attribute[0] 'body'.g",
                  check_severity::error));
    }
    SECTION("max_message_depth bounds the wire check, apart from max_graph_depth") {
        const std::string bytes = model_spec().build();
        options o{};
        o.max_message_depth = 1;  // the graph (1) holds nodes (2)
        const auto fs = run_check(bytes, o);
        INFO(show(fs));
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].code == "wire_format");
        CHECK(fs[0].message.find("depth_exceeded") != std::string::npos);
        o.max_message_depth = 0;
        o.max_graph_depth = 1;
        CHECK(run_check(bytes, o).empty());
    }
    SECTION("a null callback still counts") {
        model_spec m;
        m.has_ir = false;
        const std::string bytes = m.build();
        const check_result r = check_model(bytes, options{}, nullptr, nullptr);
        CHECK(r.errors == 1);
        CHECK_FALSE(r.ok());
    }
}

#if ONNXVIEW_HAS_EXCEPTIONS
TEST_CASE("check: options::memory running out at any request throws std::bad_alloc and leaks nothing") {
    // Findings of several kinds, so that names, paths and messages all allocate.
    std::string bytes;
    for (const check_case& c : cases())
        if (std::string_view(c.id) == "mutually_recursive_functions") bytes = c.model;
    REQUIRE_FALSE(bytes.empty());
    onnxview_test::tally_memory counted;
    options o{};
    o.memory = counted.hooks();
    const check_result full = check_model(bytes, o, nullptr, nullptr);
    CHECK(full.errors > 0);
    REQUIRE(counted.requests > 3);
    for (std::size_t n = 0; n < counted.requests; ++n) {
        INFO("failing from request " << n);
        onnxview_test::tally_memory memory;
        memory.fail_from = n;
        o.memory = memory.hooks();
        CHECK_THROWS_AS(check_model(bytes, o, nullptr, nullptr), std::bad_alloc);
        CHECK(memory.live_blocks == 0);
    }
}
#endif

#ifdef ONNXVIEW_SOURCE_DIR
TEST_CASE("check: external data with a base directory") {
    // testdata/small_cnn.weights holds 14848 bytes.
    options o{};
    o.external_base_dir = ONNXVIEW_SOURCE_DIR "/testdata";
    auto one = [&](std::initializer_list<std::pair<const char*, const char*>> entries) {
        model_spec m;
        m.graph.initializers = {external(tensor("w", 1, {4}), entries)};
        return run_check(m.build(), o);
    };
    CHECK(one({{"location", "small_cnn.weights"}, {"offset", "0"}, {"length", "16"}}).empty());
    CHECK(one({{"location", "small_cnn.weights"}, {"offset", "14832"}, {"length", "16"}}).empty());
    const auto past = one({{"location", "small_cnn.weights"}, {"offset", "14840"}, {"length", "16"}});
    REQUIRE(past.size() == 1);
    CHECK(past[0].code == "external_data");
    CHECK(past[0].path == "graph.initializer[0] 'w'");
    CHECK(past[0].message.find("[external_range_past_end]") != std::string::npos);
    const auto up = one({{"location", "../testdata/small_cnn.weights"}});
    REQUIRE(up.size() == 1);
    CHECK(up[0].message.find("[external_parent_component]") != std::string::npos);
    const auto abs = one({{"location", "/etc/passwd"}});
    REQUIRE(abs.size() == 1);
    CHECK(abs[0].message.find("[external_absolute_path]") != std::string::npos);
    const auto wrong = one({{"location", "small_cnn.weights"}, {"length", "8"}});
    REQUIRE(wrong.size() == 1);
    CHECK(wrong[0].message.find("[external_length_mismatch]") != std::string::npos);

    o.external_base_dir = ONNXVIEW_SOURCE_DIR "/no-such-directory";
    const auto base = one({{"location", "w.bin"}});
    REQUIRE(base.size() == 1);
    CHECK(base[0].code == "external_base");
    CHECK(base[0].path == "graph.initializer[0] 'w'");  // found when the first external tensor is met
}
#endif

// onnx.checker on every case (see the top of this file).
TEST_CASE("check: onnx.checker agrees where the cases say so") {
#ifdef _WIN32
    WARN("skipped on Windows");
#else
    const char* py = std::getenv("ONNXVIEW_ORACLE_PYTHON");
    if (py == nullptr || *py == '\0') {
        WARN("ONNXVIEW_ORACLE_PYTHON not set; onnx.checker comparison skipped");
        return;
    }
    char dir[] = "/tmp/onnxview-check-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const std::string d = dir;
    const auto cs = cases();
    for (const check_case& c : cs) std::ofstream(d + "/" + c.id + ".onnx", std::ios::binary) << c.model;
    std::ofstream(d + "/oracle.py") <<
        "import os, sys\n"
        "try:\n"
        "    import onnx\n"
        "except ImportError:\n"
        "    sys.exit(77)\n"
        "d = sys.argv[1]\n"
        "with open(os.path.join(d, 'verdicts.txt'), 'w') as out:\n"
        "    for f in sorted(os.listdir(d)):\n"
        "        if not f.endswith('.onnx'):\n"
        "            continue\n"
        "        try:\n"
        "            onnx.checker.check_model(os.path.join(d, f))\n"
        "            out.write(f[:-5] + ' accepts\\n')\n"
        "        except Exception as e:\n"
        "            out.write(f[:-5] + ' rejects ' + ' '.join(str(e).split())[:200] + '\\n')\n";
    const std::string cmd = std::string(py) + " " + d + "/oracle.py " + d;
    const int rc = std::system(cmd.c_str());
    std::map<std::string, std::string> verdicts;
    std::ifstream in(d + "/verdicts.txt");
    for (std::string line; std::getline(in, line);) {
        const auto sp = line.find(' ');
        verdicts[line.substr(0, sp)] = line.substr(sp + 1);
    }
    std::system(("rm -rf " + d).c_str());
    if (verdicts.empty()) {
        WARN("python3-onnx not available (exit " << rc << "); onnx.checker comparison skipped");
        return;
    }
    for (const check_case& c : cs) {  // no sections: they would rerun python per case
        INFO("case " << c.id << ": onnx.checker " << verdicts[c.id]);
        const bool rejects = verdicts[c.id].rfind("rejects", 0) == 0;
        if (c.py == oracle::rejects) CHECK(rejects);
        else CHECK_FALSE(rejects);
    }
#endif
}
