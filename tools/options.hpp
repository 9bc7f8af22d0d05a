// tools/options.hpp - a subcommand's command line, declared as a table.
//
// Each subcommand lists its options (long name, short name, value, help
// text, where the value goes) and its operands once; parse_arguments() reads
// argv against that list and help_text() writes `--help` from it, so an
// option's spelling, its check and its help line cannot drift apart.
//
// Syntax, as getopt_long: `--name`, `--name=VALUE`, `--name VALUE`,
// `-n VALUE` (the next argument is the value even when it starts with '-'),
// `--` ends the options, `-` alone is an operand. Options and operands mix
// in any order; -h/--help is every command's. Unlike getopt_long, short
// options are not bundled (`-n5` is not `-n 5`) and long names are not
// abbreviated.
#ifndef ONNXVIEW_TOOLS_OPTIONS_HPP
#define ONNXVIEW_TOOLS_OPTIONS_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace onnxview_cli {

// One option and the variable it sets. Make it with flag(), text() or number().
struct option {
    enum class kind : std::uint8_t { flag, text, number };
    const char* long_name = nullptr;   // "max-bytes" for --max-bytes; null: none
    char short_name = 0;               // 'n' for -n; 0: none
    const char* value_name = nullptr;  // "N" in `--max-bytes N`; null for a flag
    const char* help = "";             // '\n' starts an indented continuation line
    kind what = kind::flag;
    bool* flag_target = nullptr;
    const char** text_target = nullptr;
    std::vector<const char*>* list_target = nullptr;  // text_list: every occurrence, in order
    const char* text_expects = nullptr;  // "a message name": the error says "--type needs a message name"
    std::uint64_t* number_target = nullptr;
    std::uint64_t min = 0;  // accepted range of a number, inclusive
    std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
};

// --name or -n sets `target` to true.
option flag(const char* long_name, char short_name, bool& target, const char* help);
// The value, as given, into `target` (it points into argv).
option text(const char* long_name, char short_name, const char* value_name, const char*& target,
            const char* expects, const char* help);
// Every value given, in command-line order (the option may repeat).
option text_list(const char* long_name, char short_name, const char* value_name, std::vector<const char*>& target,
                 const char* expects, const char* help);
// A decimal number from `min` to `max` into `target`.
option number(const char* long_name, char short_name, const char* value_name, std::uint64_t& target,
              std::uint64_t min, std::uint64_t max, const char* help);

// A required operand, in command-line order.
struct operand {
    const char* name;     // "MODEL"
    const char** target;  // points into argv
    // Here `-x` is this operand unless -x is an option (a tensor's name may
    // start with '-'); elsewhere an unknown `-x` is an error.
    bool may_start_with_dash = false;
};

struct command_line {
    const char* command;      // "info"
    const char* summary;      // for `onnxview --help`; '\n' starts a continuation line
    const char* description;  // --help between the usage line and the options
    const char* exit_status;  // --help after the options
    std::vector<option> options;
    std::vector<operand> operands;
    // Operands after those above go here instead of being an error (diff
    // --git's seven arguments); the command checks their number. Not in
    // the synopsis: the option that wants them says so.
    std::vector<const char*>* more_operands = nullptr;
    // When the command takes more operands of its own: how the synopsis
    // shows them, after the required ones ("[NAME...]").
    const char* more_operands_synopsis = nullptr;
};

struct parse_outcome {
    enum class status : std::uint8_t { run, help, usage_error };
    status what = status::run;
    std::string message;  // for usage_error: one line, without "onnxview CMD: "
};

// Reads argv[1..argc) (argv[0] is the command's name) into the targets.
// Stops at the first error, or at -h/--help, in argument order.
parse_outcome parse_arguments(const command_line& cl, int argc, const char* const* argv);

// "info MODEL [--json]": the command, its operands and its options.
std::string synopsis(const command_line& cl);
// The whole `onnxview CMD --help` text.
std::string help_text(const command_line& cl);
// The commands block of `onnxview --help`: each synopsis, and its summary
// from column 32 (on the next line when the synopsis is longer).
std::string commands_overview(const std::vector<command_line>& commands);

// parse_arguments() for a subcommand's entry point: prints the help (stdout)
// or the error (stderr), sets `exit_code` and returns false when the command
// is not to run.
bool parse_command_line(const command_line& cl, int argc, const char* const* argv, int& exit_code);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_OPTIONS_HPP
