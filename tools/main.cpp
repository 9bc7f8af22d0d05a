// tools/main.cpp - the `onnxview` command: dispatch to a subcommand.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace {

using namespace onnxview_cli;

// In the order of `onnxview --help`.
const subcommand* const subcommands[] = {
    &info_subcommand, &check_subcommand, &stats_subcommand, &dump_subcommand, &tensor_subcommand,
    &doctor_subcommand, &scan_subcommand, &pack_subcommand, &edit_subcommand, &merge_subcommand, &profile_subcommand, &graph_subcommand,
#ifdef ONNXVIEW_CLI_COMPARE  // built with libxxhash (tools/meson.build)
    &hash_subcommand, &diff_subcommand,
#endif
};

std::string usage() {
    std::vector<command_line> commands;
    for (const subcommand* c : subcommands) commands.push_back(c->describe());
    return "usage: onnxview COMMAND [OPTIONS] FILE ...\n"
           "\n"
           "Reads ONNX model files (protobuf) without a protobuf runtime.\n"
           "\n"
           "commands:\n" +
           commands_overview(commands) +
           "\n"
           "`onnxview COMMAND --help` describes each command.\n"
           "\n"
           "exit status:\n"
           "  0  success (check: no errors found; doctor: a healthy model)\n"
           "  1  the model is invalid (check found errors, doctor findings, or the file does not parse)\n"
           "  2  bad usage, or the file could not be read (missing, directory, empty)\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(usage().c_str(), stderr);
        return exit_usage;
    }
    const std::string_view cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        std::fputs(usage().c_str(), stdout);
        return exit_ok;
    }
    if (cmd == "--version") {
        std::puts("onnxview 0.1.0");
        return exit_ok;
    }
    for (const subcommand* c : subcommands)
        if (cmd == c->describe().command) return c->run(argc - 1, argv + 1);
    std::fprintf(stderr, "onnxview: unknown command '%s' (try onnxview --help)\n", argv[1]);
    return exit_usage;
}
