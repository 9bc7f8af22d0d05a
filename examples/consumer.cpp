// A program of another project that uses onnxview: built by
// examples/meson_subproject (dependency('onnxview') from a subproject),
// examples/cmake (pkg_check_modules) and directly with pkg-config, all from
// scripts/consumers_check.sh. Prints the op types of a model's nodes.
#include <cstdio>

#include <onnxview/file.hpp>
#include <onnxview/model.hpp>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    auto file = onnxview::mapped_file::open(argv[1]);
    if (!file) {
        std::fprintf(stderr, "%s: %s\n", argv[1], onnxview::errc_message(file.err().code));
        return 1;
    }
    const onnxview::model_view m = onnxview::parse_model(file->data(), file->size());
    int nodes = 0;
    for (const onnxview::node_view& n : m.graph().node()) {
        std::printf("%.*s\n", static_cast<int>(n.op_type().size()), n.op_type().data());
        ++nodes;
    }
    std::printf("%d nodes\n", nodes);
    return m.ok() && nodes > 0 ? 0 : 1;
}
