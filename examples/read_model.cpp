// examples/read_model.cpp - open a model, list its nodes, read an initializer.
//
//   read_model MODEL.onnx [INITIALIZER]
//
// Prints the producer, the graph's nodes (op type, name, inputs -> outputs)
// and the first values of one float initializer (the first one when no name
// is given). Built and run as a test by examples/meson.build. Everything is
// an error value: nothing here throws, and the model is never copied.
#include <cinttypes>
#include <cstdio>
#include <string_view>

#include "onnxview/file.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/verify.hpp"

namespace {

int fail(const char* what, onnxview::error e) {
    std::fprintf(stderr, "%s: %s at byte %" PRIu64 "\n", what, onnxview::errc_message(e.code), e.offset);
    return 1;
}

void print_strings(onnxview::string_range names) {
    bool first = true;
    for (std::string_view s : names) {
        std::printf("%s%.*s", first ? "" : ", ", static_cast<int>(s.size()), s.data());
        first = false;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: read_model MODEL.onnx [INITIALIZER]\n");
        return 2;
    }
    const std::string_view wanted = argc > 2 ? argv[2] : "";

    // 1. The bytes: mmap where possible. Every view below points into them,
    //    so `file` must outlive the views.
    auto file = onnxview::mapped_file::open(argv[1]);
    if (!file) {
        std::fprintf(stderr, "%s: %s (%s, errno %d)\n", argv[1], onnxview::errc_message(file.err().code),
                     onnxview::errc_name(file.err().code), static_cast<int>(file.err().sys_errno));
        return 2;
    }
    const std::string_view bytes = file->bytes();

    // 2. Optional: check the whole message tree once, so that later accessors
    //    cannot meet a malformed field (they would report it, not crash).
    if (const onnxview::error e = onnxview::verify(bytes.data(), bytes.size())) return fail("verify", e);

    // 3. The views: O(fields) to make, no allocation.
    const onnxview::model_view model = onnxview::parse_model(bytes.data(), bytes.size());
    if (!model.ok()) return fail("parse_model", model.err());
    std::printf("ir_version %" PRId64 ", producer '%.*s'\n", model.ir_version(),
                static_cast<int>(model.producer_name().size()), model.producer_name().data());

    const onnxview::graph_view graph = model.graph();
    std::printf("graph '%.*s': %zu nodes\n", static_cast<int>(graph.name().size()), graph.name().data(),
                static_cast<std::size_t>(graph.node().size()));
    for (const onnxview::node_view& n : graph.node()) {
        if (!n.ok()) return fail("node", n.err());  // each view carries its own error
        std::printf("  %-10.*s %-12.*s ", static_cast<int>(n.op_type().size()), n.op_type().data(),
                    static_cast<int>(n.name().size()), n.name().data());
        print_strings(n.input());
        std::printf(" -> ");
        print_strings(n.output());
        std::printf("\n");
    }

    // 4. One initializer's values, whatever its storage (raw_data or a typed
    //    field; EXTERNAL tensors would need an external_payload_source).
    for (const onnxview::tensor_view& t : graph.initializer()) {
        if (!wanted.empty() ? t.name() != wanted : t.data_type() != 1 /* FLOAT */) continue;
        auto data = onnxview::tensor_data::make(t);
        if (!data) return fail("tensor_data", data.err());
        std::printf("initializer '%.*s': %" PRIu64 " elements, dims [", static_cast<int>(t.name().size()),
                    t.name().data(), data->size());
        bool first = true;
        for (std::int64_t d : t.dims()) {
            std::printf("%s%" PRId64, first ? "" : ", ", d);
            first = false;
        }
        std::printf("]\n  first values:");
        int shown = 0;
        auto values = data->scalars<double>();  // any numeric type, converted
        for (double v : values) {
            if (shown++ == 8) break;
            std::printf(" %g", v);
        }
        std::printf("\n");
        return values.ok() ? 0 : fail("values", values.err());
    }
    std::fprintf(stderr, "no %s initializer%s%.*s\n", wanted.empty() ? "float" : "such",
                 wanted.empty() ? "" : " ", static_cast<int>(wanted.size()), wanted.data());
    return 1;
}
