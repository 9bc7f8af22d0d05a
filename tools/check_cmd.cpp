// tools/check_cmd.cpp - `onnxview check`: print the findings of check_model().
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/check.hpp"
#include "onnxview/stats.hpp"
#include "options.hpp"
#include "sarif.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

struct arguments {
    const char* model = nullptr;
    bool json = false;
    bool sarif = false;
    bool numeric = false;
    bool no_warnings = false;
    std::uint64_t max_findings = 0;  // 0: options' default
};

command_line make_command_line(arguments& a) {
    return {"check",
            "validate the model (structure and meaning);\n"
            "--numeric: the weights' values too",
            "Validates an ONNX model beyond its wire format: IR version and opset imports,\n"
            "node inputs defined before use (graph inputs, initializers, earlier outputs,\n"
            "outer scopes of subgraphs), single assignment of every value, unique names,\n"
            "attribute value fields matching their types, tensor payloads matching dims and\n"
            "data type, external data paths and ranges, sparse tensors, model-local\n"
            "functions (no recursion) and nesting depth. Operator schemas are not checked.\n"
            "\n"
            "With --numeric it also reads every weight once and reports NaN and Inf\n"
            "values, values a conversion to fp16 or bf16 would lose, subnormals,\n"
            "all-zero, constant and duplicate tensors, and quantization scales, zero\n"
            "points and packed sizes that are wrong (docs/stats.md lists the codes).\n"
            "\n"
            "Each finding is one line on stdout:\n"
            "  error: PATH: MESSAGE [code] (byte OFFSET)\n"
            "and a last line `N errors, M warnings` (and `K infos` with --numeric).\n",
            "exit status: 0 no errors, 1 errors found, 2 usage or I/O error\n",
            {flag("json", 0, a.json, "findings as one JSON object"),
             flag("sarif", 0, a.sarif, "findings as a SARIF 2.1.0 log, for code scanning in CI"),
             flag("numeric", 0, a.numeric, "also check the values of every weight (reads them all)"),
             flag("no-warnings", 0, a.no_warnings, "report errors only"),
             number("max-findings", 0, "N", a.max_findings, 1, 0xFFFFFFFFu,
                    "stop after N findings (default 1000)")},
            {{"MODEL", &a.model}}};
}

void collect_check(void* user, const onnxview::check_finding& f) {
    static_cast<std::vector<reported_finding>*>(user)->push_back(
        {f.severity == onnxview::check_severity::error ? "error" : "warning", onnxview::finding_code_name(f.code),
         std::string(f.path), std::string(f.message), f.offset, std::string(), 0, false, false});
}

void collect_numeric(void* user, const onnxview::numeric_finding& f) {
    static_cast<std::vector<reported_finding>*>(user)->push_back(
        {onnxview::numeric_severity_name(f.severity), onnxview::numeric_code_name(f.code), std::string(f.path),
         std::string(f.message), f.offset, std::string(f.tensor), f.count, f.has_count, true});
}

std::string text_report(const std::vector<reported_finding>& found) {
    std::string text;
    for (const reported_finding& f : found) {
        text += f.severity;
        text += ": ";
        text_quote(text, f.path);
        text += ": ";
        text_quote(text, f.message);
        text += " [";
        text += f.code;
        text += "]";
        if (f.offset != 0) {
            text += " (byte ";
            text += std::to_string(f.offset);
            text += ")";
        }
        text += '\n';
    }
    return text;
}

void json_findings(json_writer& w, const std::vector<reported_finding>& found) {
    w.key("findings");
    w.begin_array();
    for (const reported_finding& f : found) {
        w.begin_object();
        w.field("severity", f.severity);
        w.field("code", f.code);
        w.field("path", std::string_view(f.path));
        w.field("message", std::string_view(f.message));
        w.field("offset", f.offset);
        if (f.numeric) {
            w.field("tensor", std::string_view(f.tensor));
            w.key("count");
            if (f.has_count) w.value(f.count);
            else w.null();
        }
        w.end_object();
    }
    w.end_array();
}

int run(arguments& a) {
    int code = exit_ok;
    const char* path = a.model;
    if (a.json && a.sarif) {
        print_error("check", "--json and --sarif cannot be given together");
        return exit_usage;
    }
    onnxview::options opts{};
    opts.errors_only = a.no_warnings;
    opts.max_findings = static_cast<std::uint32_t>(a.max_findings);
    opts.reads = onnxview::model_reads::metadata;
    if (a.numeric) opts = onnxview::stats_file_options(opts), opts.verify = false;
    onnxview::model_file mf;
    if (!open_model("check", path, opts, mf, code)) return code;
    set_external_source(path, opts);
    std::vector<reported_finding> found;
    const onnxview::check_result r = onnxview::check_model(mf.bytes(), opts, collect_check, &found);
    std::uint64_t errors = r.errors, warnings = r.warnings, infos = 0;
    bool numeric_ran = false;
    // Values are read only from a model that parses: a wire error leaves the
    // views nothing to stand on.
    bool wire_error = false;
    for (const reported_finding& f : found) wire_error = wire_error || std::string_view(f.code) == "wire_format";
    if (a.numeric && !mf.model_error() && !wire_error) {
        onnxview::numeric_check_options no;
        no.errors_only = a.no_warnings;
        const onnxview::result<onnxview::numeric_result> n = onnxview::numeric_check(mf, no, collect_numeric, &found);
        if (!n) {
            print_error("check", "numeric checks stopped: " + describe(n.err(), mf.bytes().data(), mf.bytes().size()));
            return exit_findings;
        }
        numeric_ran = true;
        errors += n->errors;
        warnings += n->warnings;
        infos += n->infos;
    }
    std::string out;
    if (a.sarif) {
        out = sarif_log(shown_path(path).c_str(), found);
    } else if (a.json) {
        json_writer w;
        w.begin_object();
        w.field("file", shown_path(path));
        json_findings(w, found);
        w.field("errors", errors);
        w.field("warnings", warnings);
        if (numeric_ran) w.field("infos", infos);
        w.field("truncated", r.truncated);
        w.field("valid", errors == 0);
        w.end_object();
        out = w.str();  // no newline after the object: as before --numeric
    } else {
        out = text_report(found);
        out += std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") + std::to_string(warnings) +
               (warnings == 1 ? " warning" : " warnings");
        if (numeric_ran) out += ", " + std::to_string(infos) + (infos == 1 ? " info" : " infos");
        if (r.truncated) out += " (stopped early: too many findings)";
        out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (r.errors != 0) {
        print_error("check", "'" + shown_path(path) + "' is not a valid ONNX model (" + std::to_string(errors) +
                                 (errors == 1 ? " error)" : " errors)") + diagnosis_suffix(mf.bytes(), path));
        return exit_findings;
    }
    if (errors != 0) {  // the model is valid; its weights are not
        print_error("check", "the weights of '" + shown_path(path) + "' have " + std::to_string(errors) +
                                 (errors == 1 ? " error" : " errors"));
        return exit_findings;
    }
    return exit_ok;
}

}  // namespace

const subcommand check_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
