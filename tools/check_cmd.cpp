// tools/check_cmd.cpp - `onnxview check`: print the findings of check_model().
#include <cstdio>
#include <string>
#include <string_view>

#include "onnxview/check.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

struct arguments {
    const char* model = nullptr;
    bool json = false;
    bool no_warnings = false;
    std::uint64_t max_findings = 0;  // 0: options' default
};

command_line make_command_line(arguments& a) {
    return {"check",
            "validate the model (structure and meaning)",
            "Validates an ONNX model beyond its wire format: IR version and opset imports,\n"
            "node inputs defined before use (graph inputs, initializers, earlier outputs,\n"
            "outer scopes of subgraphs), single assignment of every value, unique names,\n"
            "attribute value fields matching their types, tensor payloads matching dims and\n"
            "data type, external data paths and ranges, sparse tensors, model-local\n"
            "functions (no recursion) and nesting depth. Operator schemas are not checked.\n"
            "\n"
            "Each finding is one line on stdout:\n"
            "  error: PATH: MESSAGE [code] (byte OFFSET)\n"
            "and a last line `N errors, M warnings`.\n",
            "exit status: 0 no errors, 1 errors found, 2 usage or I/O error\n",
            {flag("json", 0, a.json, "findings as one JSON object"),
             flag("no-warnings", 0, a.no_warnings, "report errors only"),
             number("max-findings", 0, "N", a.max_findings, 1, 0xFFFFFFFFu,
                    "stop after N findings (default 1000)")},
            {{"MODEL", &a.model}}};
}

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

int run(arguments& a) {
    int code = exit_ok;
    const char* path = a.model;
    const bool json = a.json;
    onnxview::options opts{};
    opts.errors_only = a.no_warnings;
    opts.max_findings = static_cast<std::uint32_t>(a.max_findings);
    opts.reads = onnxview::model_reads::metadata;
    onnxview::model_file mf;
    if (!open_model("check", path, opts, mf, code)) return code;
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
    const onnxview::check_result r = onnxview::check_model(mf.bytes(), opts, on_finding, &s);
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
                                 std::to_string(r.errors) + (r.errors == 1 ? " error)" : " errors)") +
                                 diagnosis_suffix(mf.bytes(), path));
        return exit_findings;
    }
    return exit_ok;
}

}  // namespace

const subcommand check_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
