// The model example of README.md, compiled and run; a test below checks that
// the README shows exactly this code.
#include <catch2/catch.hpp>

#include <string>

#include "../doc_block.hpp"

// BEGIN MODEL EXAMPLE
#include <cstdio>
#include <onnxview/model_file.hpp>

// Lists a model's nodes and sums one initializer, wherever its data lives.
int list_and_sum(const char* path, std::string_view name) {
    auto opened = onnxview::model_file::open(path);  // mmap + one index pass, no copy
    if (!opened) return std::printf("error: %s\n", onnxview::errc_message(opened.err().code)), 1;
    onnxview::model_file& mf = opened.value();
    const onnxview::graph_view g = mf.model().graph();
    for (const onnxview::node_view& n : g.node())
        std::printf("%.*s\n", static_cast<int>(n.op_type().size()), n.op_type().data());
    auto init = onnxview::find_initializer(g, name);  // dense or sparse, linear in the initializers
    if (!init) return std::printf("error: %s\n", onnxview::errc_message(init.err().code)), 1;
    auto data = mf.tensor(init->named());  // raw_data, typed field or external file (sparse: non-zeros)
    if (!data) return std::printf("error: %s\n", onnxview::errc_message(data.err().code)), 1;
    double sum = 0;
    for (float x : data->scalars<float>()) sum += x;
    std::printf("%.*s: %llu values, sum %g\n", static_cast<int>(name.size()), name.data(),
                static_cast<unsigned long long>(data->size()), sum);
    return 0;
}
// END MODEL EXAMPLE

namespace {
// The example as a file shows it, between its markers.
std::string shown(const std::string& path) {
    return onnxview::testing::doc_block(path, "// BEGIN MODEL EXAMPLE", "// END MODEL EXAMPLE");
}
}  // namespace

TEST_CASE("README model example runs, external weights included") {
    const std::string model = std::string(ONNXVIEW_SOURCE_DIR) + "/testdata/small_cnn.onnx";
    CHECK(list_and_sum(model.c_str(), "conv2.weight") == 0);
    CHECK(list_and_sum(model.c_str(), "no.such.weight") == 1);
    CHECK(list_and_sum("/nonexistent.onnx", "x") == 1);
}

TEST_CASE("README shows the model example exactly as compiled here") {
    const std::string root = ONNXVIEW_SOURCE_DIR;
    const std::string here = shown(root + "/tests/model/readme_model_example_test.cpp");
    CHECK(here.size() > 100);
    CHECK(shown(root + "/README.md") == here);
}
