// tools/check_cmd.cpp - `onnxview check`: print the findings of check_model().
#include <cstdio>
#include <string>
#include <string_view>

#include "onnxview/check.hpp"
#include "onnxview/file.hpp"
#include "output.hpp"

namespace onnxview_cli {
namespace {

const char check_help[] =
    "usage: onnxview check MODEL [--json] [--no-warnings] [--max-findings N]\n"
    "\n"
    "Validates an ONNX model beyond its wire format: IR version and opset imports,\n"
    "node inputs defined before use (graph inputs, initializers, earlier outputs,\n"
    "outer scopes of subgraphs), single assignment of every value, unique names,\n"
    "attribute value fields matching their types, tensor payloads matching dims and\n"
    "data type, external data paths and ranges, sparse tensors, model-local\n"
    "functions (no recursion) and nesting depth. Operator schemas are not checked.\n"
    "\n"
    "Each finding is one line on stdout:\n"
    "  error: PATH: MESSAGE [code] (byte OFFSET)\n"
    "and a last line `N errors, M warnings`.\n"
    "\n"
    "options:\n"
    "  --json             findings as one JSON object\n"
    "  --no-warnings      report errors only\n"
    "  --max-findings N   stop after N findings (default 1000)\n"
    "  -h, --help         this text\n"
    "\n"
    "exit status: 0 no errors, 1 errors found, 2 usage or I/O error\n";

struct sink {
    bool json = false;
    json_writer* w = nullptr;
    std::string text;
};

void on_finding(void* user, const onnxview::check_finding& f) {
    sink& s = *static_cast<sink*>(user);
    const char* level = f.severity == onnxview::check_severity::error ? "error" : "warning";
    if (s.json) {
        s.w->begin_object();
        s.w->field("severity", level);
        s.w->field("code", onnxview::finding_code_name(f.code));
        s.w->field("path", f.path);
        s.w->field("message", f.message);
        s.w->field("offset", f.offset);
        s.w->end_object();
        return;
    }
    s.text += level;
    s.text += ": ";
    text_quote(s.text, f.path);
    s.text += ": ";
    text_quote(s.text, f.message);
    s.text += " [";
    s.text += onnxview::finding_code_name(f.code);
    s.text += "]";
    if (f.offset != 0) {
        s.text += " (byte ";
        s.text += std::to_string(f.offset);
        s.text += ")";
    }
    s.text += '\n';
}

}  // namespace

int run_check(int argc, char** argv) {
    const char* path = nullptr;
    bool json = false;
    onnxview::check_options opts{};
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (is_help(a)) {
            std::fputs(check_help, stdout);
            return exit_ok;
        }
        if (a == "--json") {
            json = true;
        } else if (a == "--no-warnings") {
            opts.warnings = false;
        } else if (a == "--max-findings") {
            std::uint64_t n = 0;
            if (i + 1 >= argc || !parse_u64(argv[i + 1], n) || n == 0 || n > 0xFFFFFFFFu) {
                print_error("check", "--max-findings needs a number from 1 to 4294967295");
                return exit_usage;
            }
            opts.max_findings = static_cast<std::uint32_t>(n);
            ++i;
        } else if (!a.empty() && a[0] == '-') {
            print_error("check", "unknown option '" + std::string(a) + "' (try onnxview check --help)");
            return exit_usage;
        } else if (path == nullptr) {
            path = argv[i];
        } else {
            print_error("check", "more than one MODEL given (try onnxview check --help)");
            return exit_usage;
        }
    }
    if (path == nullptr) {
        print_error("check", "no MODEL given (try onnxview check --help)");
        return exit_usage;
    }
    onnxview::mapped_file file;
    int code = 0;
    if (!open_model_file("check", path, file, &code)) return code;
    advise_metadata_reads(file);
    opts.model_path = path;
    json_writer w;
    sink s;
    s.json = json;
    s.w = &w;
    if (json) {
        w.begin_object();
        w.field("file", std::string_view(path));
        w.key("findings");
        w.begin_array();
    }
    const onnxview::check_result r = onnxview::check_model(file.bytes(), opts, on_finding, &s);
    if (json) {
        w.end_array();
        w.field("errors", r.errors);
        w.field("warnings", r.warnings);
        w.field("truncated", r.truncated);
        w.field("valid", r.ok());
        w.end_object();
        std::fwrite(w.str().data(), 1, w.str().size(), stdout);
    } else {
        s.text += std::to_string(r.errors) + (r.errors == 1 ? " error, " : " errors, ") +
                  std::to_string(r.warnings) + (r.warnings == 1 ? " warning" : " warnings");
        if (r.truncated) s.text += " (stopped early: too many findings)";
        s.text += '\n';
        std::fwrite(s.text.data(), 1, s.text.size(), stdout);
    }
    if (!r.ok()) {
        print_error("check", "'" + std::string(path) + "' is not a valid ONNX model (" +
                                 std::to_string(r.errors) + (r.errors == 1 ? " error)" : " errors)"));
        return exit_findings;
    }
    return exit_ok;
}

}  // namespace onnxview_cli
