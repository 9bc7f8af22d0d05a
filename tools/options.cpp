// tools/options.cpp - the table-driven command-line parser and --help writer.
#include "options.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "output.hpp"

namespace onnxview_cli {

namespace {

option named(const char* long_name, char short_name, const char* value_name, const char* help,
             option::kind what) {
    option o;
    o.long_name = long_name;
    o.short_name = short_name;
    o.value_name = value_name;
    o.help = help;
    o.what = what;
    return o;
}

}  // namespace

option flag(const char* long_name, char short_name, bool& target, const char* help) {
    option o = named(long_name, short_name, nullptr, help, option::kind::flag);
    o.flag_target = &target;
    return o;
}

option text(const char* long_name, char short_name, const char* value_name, const char*& target,
            const char* expects, const char* help) {
    option o = named(long_name, short_name, value_name, help, option::kind::text);
    o.text_target = &target;
    o.text_expects = expects;
    return o;
}

option text_list(const char* long_name, char short_name, const char* value_name, std::vector<const char*>& target,
                 const char* expects, const char* help) {
    option o = named(long_name, short_name, value_name, help, option::kind::text);
    o.list_target = &target;
    o.text_expects = expects;
    return o;
}

option number(const char* long_name, char short_name, const char* value_name, std::uint64_t& target,
              std::uint64_t min, std::uint64_t max, const char* help) {
    option o = named(long_name, short_name, value_name, help, option::kind::number);
    o.number_target = &target;
    o.min = min;
    o.max = max;
    return o;
}

namespace {

// Every command's -h/--help, listed last.
option help_option() {
    static bool unused;
    return flag("help", 'h', unused, "this text");
}

// What a number option's error says it needs.
std::string expected_number(const option& o) {
    if (o.min == 0 && o.max == std::numeric_limits<std::uint64_t>::max()) return "a number";
    if (o.min == 1 && o.max == std::numeric_limits<std::uint64_t>::max()) return "a positive number";
    return "a number from " + std::to_string(o.min) + " to " + std::to_string(o.max);
}

std::string try_help(const command_line& cl) { return std::string(" (try onnxview ") + cl.command + " --help)"; }

parse_outcome usage_error(std::string message) {
    parse_outcome r;
    r.what = parse_outcome::status::usage_error;
    r.message = std::move(message);
    return r;
}

// "no MODEL given" / "MODEL and NAME are required".
std::string missing_operands(const command_line& cl) {
    if (cl.operands.size() == 1) return std::string("no ") + cl.operands[0].name + " given";
    std::string s;
    for (std::size_t i = 0; i < cl.operands.size(); ++i) {
        if (i > 0) s += i + 1 == cl.operands.size() ? " and " : ", ";
        s += cl.operands[i].name;
    }
    return s + " are required";
}

std::string extra_operand(const command_line& cl) {
    if (cl.operands.size() == 1) return std::string("more than one ") + cl.operands[0].name + " given";
    return "too many arguments";
}

// "-h, --help", "--max-bytes N", "-n N".
std::string label(const option& o) {
    std::string s;
    if (o.short_name != 0) s += std::string("-") + o.short_name;
    if (o.short_name != 0 && o.long_name != nullptr) s += ", ";
    if (o.long_name != nullptr) s += std::string("--") + o.long_name;
    if (o.value_name != nullptr) s += std::string(" ") + o.value_name;
    return s;
}

// Appends `text` with every line after the first indented to `column`.
void append_indented(std::string& out, const char* text, std::size_t column) {
    for (const char* p = text; *p != '\0'; ++p) {
        out += *p;
        if (*p == '\n' && p[1] != '\0') out.append(column, ' ');
    }
    out += '\n';
}

}  // namespace

parse_outcome parse_arguments(const command_line& cl, int argc, const char* const* argv) {
    std::vector<option> options = cl.options;
    options.push_back(help_option());
    std::size_t operands_seen = 0;
    bool options_ended = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const bool next_takes_dash =
            operands_seen < cl.operands.size() && cl.operands[operands_seen].may_start_with_dash;
        if (!options_ended && arg == "--") {
            options_ended = true;
            continue;
        }
        if (!options_ended && arg.size() > 1 && arg[0] == '-') {
            const bool is_long = arg[1] == '-';
            const std::size_t eq = is_long ? arg.find('=') : std::string_view::npos;
            const std::string_view spelled = arg.substr(0, eq);  // "--type" of "--type=x"
            const option* found = nullptr;
            for (const option& o : options) {
                if (is_long ? o.long_name != nullptr && spelled.substr(2) == o.long_name
                            : o.short_name != 0 && arg.size() == 2 && arg[1] == o.short_name)
                    found = &o;
            }
            if (found == nullptr && !is_long && next_takes_dash) {
                *cl.operands[operands_seen++].target = argv[i];
                continue;
            }
            if (found == nullptr) return usage_error("unknown option '" + std::string(arg) + "'" + try_help(cl));
            if (found->what == option::kind::flag) {
                if (eq != std::string_view::npos)
                    return usage_error("option '" + std::string(spelled) + "' takes no value" + try_help(cl));
                if (found == &options.back()) {
                    parse_outcome r;
                    r.what = parse_outcome::status::help;
                    return r;
                }
                *found->flag_target = true;
                continue;
            }
            const char* value = nullptr;
            if (eq != std::string_view::npos) value = argv[i] + eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            if (found->what == option::kind::text) {
                if (value == nullptr) return usage_error(std::string(spelled) + " needs " + found->text_expects);
                if (found->list_target != nullptr) found->list_target->push_back(value);
                else *found->text_target = value;
                continue;
            }
            std::uint64_t n = 0;
            if (value == nullptr || !parse_u64(value, n) || n < found->min || n > found->max)
                return usage_error(std::string(spelled) + " needs " + expected_number(*found));
            *found->number_target = n;
            continue;
        }
        if (operands_seen == cl.operands.size()) {
            if (cl.more_operands == nullptr) return usage_error(extra_operand(cl) + try_help(cl));
            cl.more_operands->push_back(argv[i]);
            continue;
        }
        *cl.operands[operands_seen++].target = argv[i];
    }
    if (operands_seen < cl.operands.size()) return usage_error(missing_operands(cl) + try_help(cl));
    return {};
}

std::string synopsis(const command_line& cl) {
    std::string s = cl.command;
    for (const operand& o : cl.operands) s += std::string(" ") + o.name;
    if (cl.more_operands_synopsis != nullptr) s += std::string(" ") + cl.more_operands_synopsis;
    for (const option& o : cl.options) {
        s += " [";
        s += o.long_name != nullptr ? std::string("--") + o.long_name : std::string("-") + o.short_name;
        if (o.value_name != nullptr) s += std::string(" ") + o.value_name;
        s += "]";
    }
    return s;
}

std::string help_text(const command_line& cl) {
    std::vector<option> options = cl.options;
    options.push_back(help_option());
    std::size_t width = 0;
    for (const option& o : options) width = std::max(width, label(o).size());
    const std::size_t column = 2 + width + 2;
    std::string s = "usage: onnxview " + synopsis(cl) + "\n\n" + cl.description + "\noptions:\n";
    for (const option& o : options) {
        const std::string l = label(o);
        s += "  " + l + std::string(column - 2 - l.size(), ' ');
        append_indented(s, o.help, column);
    }
    return s + "\n" + cl.exit_status;
}

std::string commands_overview(const std::vector<command_line>& commands) {
    constexpr std::size_t column = 32;
    std::string s;
    for (const command_line& cl : commands) {
        const std::string line = "  " + synopsis(cl);
        s += line;
        if (line.size() + 2 <= column) s.append(column - line.size(), ' ');
        else s += "\n" + std::string(column, ' ');
        append_indented(s, cl.summary, column);
    }
    return s;
}

bool parse_command_line(const command_line& cl, int argc, const char* const* argv, int& exit_code) {
    const parse_outcome r = parse_arguments(cl, argc, argv);
    switch (r.what) {
        case parse_outcome::status::run: return true;
        case parse_outcome::status::help: {
            const std::string h = help_text(cl);
            std::fwrite(h.data(), 1, h.size(), stdout);
            exit_code = exit_ok;
            return false;
        }
        case parse_outcome::status::usage_error: break;
    }
    print_error(cl.command, r.message);
    exit_code = exit_usage;
    return false;
}

}  // namespace onnxview_cli
