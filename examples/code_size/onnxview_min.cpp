// The program scripts/code_size.sh measures: read a file into memory, open
// it as a model, walk the graph (nodes, attributes, inputs), sum one float
// initializer. With -DBASELINE the onnxview calls are left out and only the
// file reading and printing remain; the .text difference is onnxview's cost.
// With -DONNXVIEW_MIN_SINGLE_HEADER it compiles the implementation from the
// single header into this translation unit; otherwise it links libonnxview.
#include <cstdio>
#include <cstdlib>

#if defined(BASELINE)
#elif defined(ONNXVIEW_MIN_SINGLE_HEADER)
#define ONNXVIEW_IMPLEMENTATION
#include "onnxview.hpp"
#else
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#endif

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    std::FILE* f = std::fopen(argv[1], "rb");
    if (!f) return 2;
    std::fseek(f, 0, SEEK_END);
    const long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    char* buf = static_cast<char*>(std::malloc(static_cast<std::size_t>(size)));
    if (!buf || std::fread(buf, 1, static_cast<std::size_t>(size), f) != static_cast<std::size_t>(size)) return 2;
    std::fclose(f);
    unsigned long nodes = 0, attributes = 0, inputs = 0;
    double sum = 0;
    int rc = 0;
#ifndef BASELINE
    const onnxview::model_view m = onnxview::parse_model(buf, static_cast<std::size_t>(size));
    if (!m.ok()) rc = 1;
    const onnxview::graph_view g = m.graph();
    for (const onnxview::node_view& n : g.node()) {
        ++nodes;
        inputs += n.input().size();
        for (const onnxview::attribute_view& a : n.attribute()) attributes += !a.name().empty();
    }
    for (const onnxview::tensor_view& t : g.initializer()) {
        auto d = onnxview::tensor_data::make(t);
        if (!d || !d->holds<float>()) continue;
        for (float x : d->elements<float>()) sum += x;
        break;
    }
#endif
    std::printf("%ld bytes: %lu nodes, %lu attributes, %lu inputs, sum %g\n", size, nodes, attributes, inputs, sum);
    std::free(buf);
    return rc;
}
