// tools/subcommand.hpp - the one skeleton of every onnxview subcommand.
//
// A subcommand file declares its arguments struct, a make_command_line()
// that lists its options over one (options.hpp), and a run() that does the
// work on parsed arguments; make_subcommand() joins them into the two entry
// points main.cpp dispatches to, so parsing argv, `--help` and the usage
// error are written once:
//
//   const subcommand info_subcommand = make_subcommand<arguments, make_command_line, run>();
#ifndef ONNXVIEW_TOOLS_SUBCOMMAND_HPP
#define ONNXVIEW_TOOLS_SUBCOMMAND_HPP

#include "options.hpp"
#include "output.hpp"

namespace onnxview_cli {

struct subcommand {
    // Its command line, for `onnxview --help` and its own (the targets are not used).
    command_line (*describe)();
    // argc/argv start after the subcommand name (argv[0] is it); returns the exit code.
    int (*run)(int argc, char** argv);
};

template <class Args, command_line (*Make)(Args&), int (*Run)(Args&)>
constexpr subcommand make_subcommand() {
    return {[]() {
                static Args unused;
                return Make(unused);
            },
            [](int argc, char** argv) {
                Args a;
                int code = exit_ok;
                if (!parse_command_line(Make(a), argc, argv, code)) return code;
                return Run(a);
            }};
}

// In the order of `onnxview --help`.
extern const subcommand info_subcommand;
extern const subcommand check_subcommand;
extern const subcommand stats_subcommand;
extern const subcommand dump_subcommand;
extern const subcommand tensor_subcommand;
extern const subcommand doctor_subcommand;
extern const subcommand scan_subcommand;
extern const subcommand pack_subcommand;
extern const subcommand edit_subcommand;
extern const subcommand merge_subcommand;
extern const subcommand profile_subcommand;
extern const subcommand graph_subcommand;
// Only with the comparison library (ONNXVIEW_CLI_COMPARE, tools/meson.build).
extern const subcommand hash_subcommand;
extern const subcommand diff_subcommand;

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_SUBCOMMAND_HPP
