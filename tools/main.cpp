// tools/main.cpp - the `onnxview` command: dispatch to a subcommand.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "output.hpp"

namespace {

const char usage[] =
    "usage: onnxview COMMAND [OPTIONS] FILE ...\n"
    "\n"
    "Reads ONNX model files (protobuf) without a protobuf runtime.\n"
    "\n"
    "commands:\n"
    "  info MODEL [--json]           summary: versions, opsets, inputs/outputs, ops,\n"
    "                                initializers, external data, functions\n"
    "  check MODEL [--json]          validate the model (structure and meaning)\n"
    "  dump FILE [--type T] [--max-bytes N] [--json]\n"
    "                                print a message as protobuf text (or JSON)\n"
    "  tensor MODEL NAME [-n N] [--json]\n"
    "                                type, shape, storage and values of one tensor\n"
    "                                (dense or sparse)\n"
    "\n"
    "`onnxview COMMAND --help` describes each command.\n"
    "\n"
    "exit status:\n"
    "  0  success (check: no errors found)\n"
    "  1  the model is invalid (check found errors, or the file does not parse)\n"
    "  2  bad usage, or the file could not be read (missing, directory, empty)\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace onnxview_cli;
    if (argc < 2) {
        std::fputs(usage, stderr);
        return exit_usage;
    }
    const std::string_view cmd = argv[1];
    if (is_help(cmd) || cmd == "help") {
        std::fputs(usage, stdout);
        return exit_ok;
    }
    if (cmd == "--version") {
        std::puts("onnxview 0.1.0");
        return exit_ok;
    }
    if (cmd == "info") return run_info(argc - 1, argv + 1);
    if (cmd == "check") return run_check(argc - 1, argv + 1);
    if (cmd == "dump") return run_dump(argc - 1, argv + 1);
    if (cmd == "tensor") return run_tensor(argc - 1, argv + 1);
    std::fprintf(stderr, "onnxview: unknown command '%s' (try onnxview --help)\n", argv[1]);
    return exit_usage;
}
