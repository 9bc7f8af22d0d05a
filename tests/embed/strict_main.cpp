// A user of the single header (its API half only; strict_impl.cpp holds the
// implementation): opens a model, verifies it, walks its nodes and reads a
// float tensor. Two translation units prove the header's inline functions
// and the implementation link without duplicate or missing symbols.
#include <cstdio>

#include "onnxview.hpp"

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    auto file = onnxview::mapped_file::open(argv[1]);
    if (!file) {
        std::fprintf(stderr, "open: %s (system code %d)\n", onnxview::errc_name(file.err().code),
                     static_cast<int>(file.err().sys_errno));
        return 1;
    }
    if (const onnxview::error e = onnxview::verify(file->data(), file->size())) {
        std::fprintf(stderr, "verify: %s\n", onnxview::errc_name(e.code));
        return 1;
    }
    const onnxview::model_view m = onnxview::parse_model(file->data(), file->size());
    unsigned nodes = 0, floats = 0;
    for (const onnxview::node_view& n : m.graph().node()) nodes += n.ok();
    for (const onnxview::tensor_view& t : m.graph().initializer()) {
        auto d = onnxview::tensor_data::make(t);
        if (d && d->holds<float>())
            for (float x : d->elements<float>()) floats += x == x;
    }
    std::printf("%u nodes, %u float values\n", nodes, floats);
    return nodes > 0 && floats > 0 ? 0 : 1;
}
