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
    return "usage: onnxview [GLOBAL OPTIONS] COMMAND [OPTIONS] FILE ...\n"
           "\n"
           "Reads ONNX model files (protobuf) without a protobuf runtime.\n"
           "FILE may be an http://, https://, s3:// or hf:// URL for the commands that\n"
           "only read (docs/remote.md): the metadata is fetched by byte ranges, never\n"
           "the weights until a command reads them.\n"
           "\n"
           "global options (remote files):\n"
           "  --stats[=json]          print the bytes and requests each remote file cost\n"
           "  --allow-full-download   read a file whose server ignores byte ranges\n"
           "  --timeout SECONDS       fail a request with no progress for this long (30)\n"
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

// The global options before the command (remote reading): consumed from
// argv. False, with a message, for a bad value.
bool take_global_options(int& argc, char**& argv) {
    remote_settings& r = remote_cli_settings();
    while (argc >= 2) {
        const std::string_view a = argv[1];
        if (a == "--stats" || a == "--stats=json") {
            r.stats = true;
            r.stats_json = a == "--stats=json";
        } else if (a == "--allow-full-download") {
            r.allow_full_download = true;
        } else if (a == "--timeout") {
            std::uint64_t seconds = 0;
            if (argc < 3 || !parse_u64(argv[2], seconds) || seconds == 0 || seconds > 86400) {
                std::fputs("onnxview: --timeout takes a number of seconds (1 to 86400)\n", stderr);
                return false;
            }
            r.timeout_ms = static_cast<std::uint32_t>(seconds * 1000);
            --argc;
            ++argv;
        } else {
            return true;
        }
        --argc;
        ++argv;
    }
    return true;
}
}  // namespace

int main(int argc, char** argv) {
    if (!take_global_options(argc, argv)) return exit_usage;
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
        if (cmd == c->describe().command) {
            const int code = c->run(argc - 1, argv + 1);
            report_remote_reads();
            return code;
        }
    std::fprintf(stderr, "onnxview: unknown command '%s' (try onnxview --help)\n", argv[1]);
    return exit_usage;
}
