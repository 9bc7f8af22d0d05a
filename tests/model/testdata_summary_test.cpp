// The summary of every testdata/*.onnx made from onnxview's views equals the
// python3-onnx oracle's, testdata/summaries/<name>.summary (format:
// tests/oracle/README.md). Also unit tests of the summary helpers.
#include <catch2/catch.hpp>

#include <dirent.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "summary.hpp"

using namespace onnxview_test;

#ifndef ONNXVIEW_SOURCE_DIR
#error "ONNXVIEW_SOURCE_DIR must name the source tree (set in tests/model/meson.build)"
#endif

namespace {

std::vector<std::string> testdata_models() {
    std::vector<std::string> names;
    const std::string dir = std::string(ONNXVIEW_SOURCE_DIR) + "/testdata";
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".onnx") == 0) names.push_back(name);
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST_CASE("testdata: C++ summary equals the python3-onnx summary") {
    const std::string root = ONNXVIEW_SOURCE_DIR;
    const auto names = testdata_models();
    REQUIRE(names.size() >= 6);
    for (const std::string& name : names) {
        std::string expected;
        REQUIRE(read_file(root + "/testdata/summaries/" + name + ".summary", expected));
        const std::string actual = summarize_file(root + "/testdata/" + name);
        const summary_diff d = compare_summaries(expected, actual);
        INFO(name << ": " << d.describe());
        CHECK(d.equal);
    }
}

TEST_CASE("testdata: structure lines match without the value lines") {
    // The same comparison with the element values left out, so a failure in
    // the values and one in the structure are told apart.
    const std::string root = ONNXVIEW_SOURCE_DIR;
    summary_options no_values;
    no_values.values = false;
    for (const std::string& name : testdata_models()) {
        std::string expected;
        REQUIRE(read_file(root + "/testdata/summaries/" + name + ".summary", expected));
        const std::string actual = summarize_file(root + "/testdata/" + name, no_values);
        const summary_diff d = compare_summaries(strip_value_lines(expected), actual);
        INFO(name << ": " << d.describe());
        CHECK(d.equal);
    }
}

TEST_CASE("testdata: the inline and the external-data CNN differ only in storage") {
    const std::string root = ONNXVIEW_SOURCE_DIR;
    const std::string ext = summarize_file(root + "/testdata/small_cnn.onnx");
    const std::string in = summarize_file(root + "/testdata/small_cnn_inline.onnx");
    auto drop = [](const std::string& s) {
        std::string out;
        std::size_t pos = 0;
        while (pos < s.size()) {
            const std::size_t end = s.find('\n', pos);
            const std::string line = s.substr(pos, end - pos);
            pos = end + 1;
            const std::size_t i = line.find_first_not_of(' ');
            const std::string body = line.substr(i);
            if (body.rfind("data_location:", 0) == 0 || body.rfind("external_data:", 0) == 0 ||
                body.rfind("storage:", 0) == 0)
                continue;
            out += line + "\n";
        }
        return out;
    };
    CHECK(ext != in);
    const summary_diff d = compare_summaries(drop(ext), drop(in));
    INFO(d.describe());
    CHECK(d.equal);
}

TEST_CASE("summary comparison: error lines match up to 'error:'") {
    CHECK(compare_summaries("model\n  a: 1\n", "model\n  a: 1\n").equal);
    CHECK(compare_summaries("  error: ValueError: x\n", "  error: something else\n").equal);
    CHECK(compare_summaries("error: cannot parse\n", "error:\n").equal);
    CHECK_FALSE(compare_summaries("  error: x\n", "error: x\n").equal);      // indentation counts
    CHECK_FALSE(compare_summaries("  error: x\n", "    error: x\n").equal);
    CHECK_FALSE(compare_summaries("  count: 1\n", "  error: x\n").equal);   // only an expected error is lenient
    const summary_diff d = compare_summaries("a\nb\nc\n", "a\nB\nc\n");
    CHECK_FALSE(d.equal);
    CHECK(d.line == 2);
    CHECK(d.expected == "b");
    CHECK(d.actual == "B");
    const summary_diff shorter = compare_summaries("a\nb\n", "a\n");
    CHECK(shorter.line == 2);
    CHECK(shorter.actual == "<end of summary>");
    CHECK_FALSE(compare_summaries("a\n", "a").equal);
}

TEST_CASE("summary: strip_value_lines keeps the structure") {
    const std::string s =
        "tensor \"t\"\n  data_type: 1 FLOAT\n  count: 2\n  nan: 0\n  pos_inf: 0\n  neg_inf: 0\n"
        "  sum: 3\n  crc32: 00000000\n  first: [1, 2]\n";
    CHECK(strip_value_lines(s) == "tensor \"t\"\n  data_type: 1 FLOAT\n  count: 2\n");
    CHECK(strip_value_lines("error: x\n") == "error: x\n");
}

TEST_CASE("summary: a file that is not a model gives one error line") {
    const std::string bad("\x0a\x05\x01", 3);  // field 1, length 5, 1 byte left
    const std::string s = summarize_model(bad, ".");
    CHECK(s.rfind("error:", 0) == 0);
    CHECK(std::count(s.begin(), s.end(), '\n') == 1);
    CHECK(summarize_model(std::string_view(), ".").rfind("model\n  ir_version: 0\n", 0) == 0);
}
