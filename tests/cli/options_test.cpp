// The command-line parser of the onnxview tool (tools/options.hpp): syntax,
// errors and the --help text written from an option table.
#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "options.hpp"

using namespace onnxview_cli;
using status = parse_outcome::status;

namespace {

// A command with one of each kind of option, and two operands the second of
// which may start with '-' (as `onnxview tensor MODEL NAME`).
struct sample {
    const char* model = nullptr;
    const char* name = nullptr;
    const char* type = "default";
    std::uint64_t count = 10;
    std::uint64_t limit = 0;
    bool json = false;

    command_line line(bool dash_operand = true) {
        return {"sample",
                "a sample\nsecond line",
                "Describes nothing.\n",
                "exit status: 0 ok\n",
                {number(nullptr, 'n', "N", count, 0, UINT64_MAX, "count"),
                 text("type", 't', "MESSAGE", type, "a message name", "the type,\nover two lines"),
                 number("limit", 0, "N", limit, 1, 4294967295u, "a limit"),
                 flag("json", 0, json, "JSON")},
                {{"MODEL", &model}, {"NAME", &name, dash_operand}}};
    }
};

parse_outcome parse(sample& s, std::initializer_list<const char*> args, bool dash_operand = true) {
    std::vector<const char*> argv{"sample"};
    argv.insert(argv.end(), args.begin(), args.end());
    return parse_arguments(s.line(dash_operand), static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("options: operands, flags and values in every spelling") {
    sample s;
    REQUIRE(parse(s, {"m.onnx", "x", "--json", "-n", "5", "--type=T", "--limit", "7"}).what == status::run);
    CHECK(std::string(s.model) == "m.onnx");
    CHECK(std::string(s.name) == "x");
    CHECK(s.json);
    CHECK(s.count == 5);
    CHECK(std::string(s.type) == "T");
    CHECK(s.limit == 7);

    sample t;
    REQUIRE(parse(t, {"--limit=9", "-t", "-x", "m.onnx", "y"}).what == status::run);
    CHECK(t.limit == 9);
    CHECK(std::string(t.type) == "-x");  // a value may start with '-'
    CHECK_FALSE(t.json);
    CHECK(t.count == 10);  // untouched when not given

    sample u;
    REQUIRE(parse(u, {"--type=", "m.onnx", "y", "--type", "last"}).what == status::run);
    CHECK(std::string(u.type) == "last");  // the last occurrence wins
}

TEST_CASE("options: -- ends the options, - is an operand") {
    sample s;
    REQUIRE(parse(s, {"--", "--json", "-n"}).what == status::run);
    CHECK(std::string(s.model) == "--json");
    CHECK(std::string(s.name) == "-n");
    CHECK_FALSE(s.json);

    sample t;
    REQUIRE(parse(t, {"-", "-"}).what == status::run);
    CHECK(std::string(t.model) == "-");
    CHECK(std::string(t.name) == "-");
}

TEST_CASE("options: an operand that may start with '-'") {
    sample s;
    REQUIRE(parse(s, {"m.onnx", "-weird", "-n", "1"}).what == status::run);
    CHECK(std::string(s.name) == "-weird");
    CHECK(s.count == 1);

    sample t;  // a known short option is still the option
    REQUIRE(parse(t, {"m.onnx", "-n", "2", "name"}).what == status::run);
    CHECK(t.count == 2);
    CHECK(std::string(t.name) == "name");

    sample u;  // only where that operand is next
    CHECK(parse(u, {"-weird", "m.onnx", "x"}).message == "unknown option '-weird' (try onnxview sample --help)");
    sample v;  // long options are never operands
    CHECK(parse(v, {"m.onnx", "--weird"}).message == "unknown option '--weird' (try onnxview sample --help)");
    sample w;  // and only where the table says so
    CHECK(parse(w, {"m.onnx", "-weird"}, false).message == "unknown option '-weird' (try onnxview sample --help)");
}

TEST_CASE("options: usage errors, one line each, the first in argument order") {
    const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
        {{"--bogus", "m", "x"}, "unknown option '--bogus' (try onnxview sample --help)"},
        {{"--bogus=1", "m", "x"}, "unknown option '--bogus=1' (try onnxview sample --help)"},
        {{"--json=1", "m", "x"}, "option '--json' takes no value (try onnxview sample --help)"},
        {{"m", "x", "-n"}, "-n needs a number"},
        {{"m", "x", "-n", "x"}, "-n needs a number"},
        {{"m", "x", "-n", "-1"}, "-n needs a number"},
        {{"m", "x", "-n", ""}, "-n needs a number"},
        {{"m", "x", "-n", "99999999999999999999"}, "-n needs a number"},
        {{"m", "x", "--limit", "0"}, "--limit needs a number from 1 to 4294967295"},
        {{"m", "x", "--limit=4294967296"}, "--limit needs a number from 1 to 4294967295"},
        {{"m", "x", "--type"}, "--type needs a message name"},
        {{"m", "x", "-t"}, "-t needs a message name"},
        {{"m"}, "MODEL and NAME are required (try onnxview sample --help)"},
        {{}, "MODEL and NAME are required (try onnxview sample --help)"},
        {{"m", "x", "y"}, "too many arguments (try onnxview sample --help)"},
        {{"m", "x", "y", "--bogus"}, "too many arguments (try onnxview sample --help)"},
        {{"--bogus", "--help"}, "unknown option '--bogus' (try onnxview sample --help)"},
    };
    for (const auto& c : cases) {
        sample s;
        std::vector<const char*> argv{"sample"};
        argv.insert(argv.end(), c.first.begin(), c.first.end());
        const parse_outcome r = parse_arguments(s.line(), static_cast<int>(argv.size()), argv.data());
        INFO(c.second);
        CHECK(r.what == status::usage_error);
        CHECK(r.message == c.second);
    }
}

TEST_CASE("options: one operand names itself in its errors") {
    const char* model = nullptr;
    const command_line cl{"one", "", "", "", {}, {{"MODEL", &model}}};
    const char* none[] = {"one"};
    CHECK(parse_arguments(cl, 1, none).message == "no MODEL given (try onnxview one --help)");
    const char* two[] = {"one", "a", "b"};
    CHECK(parse_arguments(cl, 3, two).message == "more than one MODEL given (try onnxview one --help)");
    const char* three_operands[] = {"three"};
    const char *a = nullptr, *b = nullptr, *c = nullptr;
    const command_line three{"three", "", "", "", {}, {{"A", &a}, {"B", &b}, {"C", &c}}};
    CHECK(parse_arguments(three, 1, three_operands).message == "A, B and C are required (try onnxview three --help)");
}

TEST_CASE("options: -h and --help win where they are reached") {
    for (const char* h : {"-h", "--help"}) {
        sample s;
        CHECK(parse(s, {h}).what == status::help);
        sample t;
        CHECK(parse(t, {"m", "x", "y", h}).what == status::usage_error);  // too many operands first
        sample u;
        CHECK(parse(u, {"m", h, "--bogus"}).what == status::help);
        sample v;
        CHECK(parse(v, {"--", h, "x"}).what == status::run);  // an operand after --
    }
    sample s;
    CHECK(parse(s, {"--help=1"}).message == "option '--help' takes no value (try onnxview sample --help)");
}

TEST_CASE("options: --help and the command overview are written from the table") {
    sample s;
    CHECK(synopsis(s.line()) == "sample MODEL NAME [-n N] [--type MESSAGE] [--limit N] [--json]");
    CHECK(help_text(s.line()) ==
          "usage: onnxview sample MODEL NAME [-n N] [--type MESSAGE] [--limit N] [--json]\n"
          "\n"
          "Describes nothing.\n"
          "\n"
          "options:\n"
          "  -n N                count\n"
          "  -t, --type MESSAGE  the type,\n"  // the longest label sets the column
          "                      over two lines\n"
          "  --limit N           a limit\n"
          "  --json              JSON\n"
          "  -h, --help          this text\n"
          "\n"
          "exit status: 0 ok\n");
    const char* model = nullptr;
    const command_line short_one{"s", "short\nsummary", "", "", {}, {{"M", &model}}};
    CHECK(commands_overview({short_one, s.line()}) ==
          "  s M                           short\n"
          "                                summary\n"
          "  sample MODEL NAME [-n N] [--type MESSAGE] [--limit N] [--json]\n"
          "                                a sample\n"
          "                                second line\n");
}

TEST_CASE("options: text_list keeps every occurrence, in order") {
    std::vector<const char*> values;
    const char* file = nullptr;
    const command_line cl{"edit", "s", "d\n", "e\n",
                          {text_list("metadata", 'm', "KEY=VALUE", values, "KEY=VALUE or KEY", "set a key")},
                          {{"FILE", &file}}};
    const char* argv[] = {"edit", "--metadata", "a=1", "f.onnx", "-m", "b", "--metadata=c=3"};
    REQUIRE(parse_arguments(cl, 7, argv).what == status::run);
    REQUIRE(values.size() == 3);
    CHECK(std::string(values[0]) == "a=1");
    CHECK(std::string(values[1]) == "b");
    CHECK(std::string(values[2]) == "c=3");
    const char* missing[] = {"edit", "f.onnx", "--metadata"};
    const parse_outcome r = parse_arguments(cl, 3, missing);
    CHECK(r.what == status::usage_error);
    CHECK(r.message == "--metadata needs KEY=VALUE or KEY");
}

TEST_CASE("options: operands past the declared ones, when the command collects them") {
    sample s;
    std::vector<const char*> more;
    command_line cl = s.line();
    cl.more_operands = &more;
    const std::vector<const char*> argv{"sample", "m.onnx", "x", "a", "--json", "b"};
    REQUIRE(parse_arguments(cl, static_cast<int>(argv.size()), argv.data()).what == status::run);
    CHECK(std::string(s.name) == "x");
    CHECK(s.json);
    REQUIRE(more.size() == 2);
    CHECK(std::string(more[0]) == "a");
    CHECK(std::string(more[1]) == "b");
    CHECK(synopsis(cl) == synopsis(s.line()));  // not shown: the option that wants them says so

    sample t;  // without a place for them, still an error
    CHECK(parse(t, {"m.onnx", "x", "a"}).message == "too many arguments (try onnxview sample --help)");
}
