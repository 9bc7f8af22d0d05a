// The same program as onnxview_min.cpp with libprotobuf-lite and code that
// protoc generates from Debian's onnx.proto (LITE_RUNTIME). scripts/code_size.sh
// builds it; -DBASELINE leaves the protobuf calls out.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef BASELINE
#include "onnx.pb.h"
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
    onnx::ModelProto m;
    if (!m.ParseFromArray(buf, static_cast<int>(size))) rc = 1;
    for (const onnx::NodeProto& n : m.graph().node()) {
        ++nodes;
        inputs += static_cast<unsigned long>(n.input_size());
        for (const onnx::AttributeProto& a : n.attribute()) attributes += !a.name().empty();
    }
    for (const onnx::TensorProto& t : m.graph().initializer()) {
        if (t.data_type() != onnx::TensorProto::FLOAT) continue;
        if (!t.raw_data().empty()) {
            const std::string& raw = t.raw_data();
            for (std::size_t i = 0; i + 4 <= raw.size(); i += 4) {
                float x;
                std::memcpy(&x, raw.data() + i, 4);  // little-endian host assumed
                sum += x;
            }
        } else {
            for (float x : t.float_data()) sum += x;
        }
        break;
    }
#endif
    std::printf("%ld bytes: %lu nodes, %lu attributes, %lu inputs, sum %g\n", size, nodes, attributes, inputs, sum);
    std::free(buf);
    return rc;
}
