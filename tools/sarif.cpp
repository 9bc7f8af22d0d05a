// tools/sarif.cpp - findings as a SARIF 2.1.0 log (sarif.hpp).
#include "sarif.hpp"

#include <cstring>
#include <string_view>

#include "onnxview/json_writer.hpp"
#include "onnxview/stats.hpp"

namespace onnxview_cli {
namespace {

using onnxview::json_writer;

// SARIF's levels: "note" is its word for information.
const char* sarif_level(const char* severity) {
    return std::strcmp(severity, "info") == 0 ? "note" : severity;
}

// A path as a URI reference (RFC 3986): unreserved characters and '/' as
// they are, every other byte percent-encoded.
std::string uri_reference(std::string_view path) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char ch : path) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || c == '~' || c == '/') {
            out += ch;
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

// The rule's one-line description: the numeric codes have one in the
// library; the checker's codes are named for what they find.
std::string rule_description(const reported_finding& f) {
    if (f.numeric)
        for (std::size_t i = 0; i < onnxview::numeric_code_count; ++i) {
            const auto code = static_cast<onnxview::numeric_code>(i);
            if (std::strcmp(onnxview::numeric_code_name(code), f.code) == 0)
                return onnxview::numeric_code_description(code);
        }
    std::string text = f.code;
    for (char& c : text)
        if (c == '_') c = ' ';
    return "model check: " + text;
}

}  // namespace

std::string sarif_log(const char* model_path, const std::vector<reported_finding>& found) {
    std::vector<const reported_finding*> rules;  // the first finding of each code
    std::vector<std::size_t> rule_of(found.size());
    for (std::size_t i = 0; i < found.size(); ++i) {
        std::size_t r = 0;
        while (r < rules.size() && std::strcmp(rules[r]->code, found[i].code) != 0) ++r;
        if (r == rules.size()) rules.push_back(&found[i]);
        rule_of[i] = r;
    }
    const std::string uri = uri_reference(model_path);
    json_writer w;
    w.begin_object();
    w.field("$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
    w.field("version", "2.1.0");
    w.key("runs");
    w.begin_array();
    w.begin_object();
    w.key("tool");
    w.begin_object();
    w.key("driver");
    w.begin_object();
    w.field("name", "onnxview");
    w.field("version", "0.1.0");
    w.key("rules");
    w.begin_array();
    for (const reported_finding* f : rules) {
        w.begin_object();
        w.field("id", f->code);
        w.key("shortDescription");
        w.begin_object();
        w.field("text", std::string_view(rule_description(*f)));
        w.end_object();
        w.key("defaultConfiguration");
        w.begin_object();
        w.field("level", sarif_level(f->severity));
        w.end_object();
        w.end_object();
    }
    w.end_array();
    w.end_object();  // driver
    w.end_object();  // tool
    w.key("artifacts");
    w.begin_array();
    w.begin_object();
    w.key("location");
    w.begin_object();
    w.field("uri", std::string_view(uri));
    w.end_object();
    w.end_object();
    w.end_array();
    w.key("results");
    w.begin_array();
    for (std::size_t i = 0; i < found.size(); ++i) {
        const reported_finding& f = found[i];
        w.begin_object();
        w.field("ruleId", f.code);
        w.field("ruleIndex", static_cast<std::uint64_t>(rule_of[i]));
        w.field("level", sarif_level(f.severity));
        w.key("message");
        w.begin_object();
        w.field("text", std::string_view(f.message));
        w.end_object();
        w.key("locations");
        w.begin_array();
        w.begin_object();
        w.key("physicalLocation");
        w.begin_object();
        w.key("artifactLocation");
        w.begin_object();
        w.field("uri", std::string_view(uri));
        w.field("index", static_cast<std::uint64_t>(0));
        w.end_object();
        if (f.offset != 0) {
            w.key("region");
            w.begin_object();
            w.field("byteOffset", f.offset);
            w.end_object();
        }
        w.end_object();  // physicalLocation
        w.key("logicalLocations");
        w.begin_array();
        w.begin_object();
        w.field("fullyQualifiedName", std::string_view(f.path));
        w.field("kind", "member");
        w.end_object();
        w.end_array();
        w.end_object();
        w.end_array();  // locations
        if (f.numeric) {
            w.key("properties");
            w.begin_object();
            w.field("tensor", std::string_view(f.tensor));
            w.key("count");
            if (f.has_count) w.value(f.count);
            else w.null();
            w.end_object();
        }
        w.end_object();
    }
    w.end_array();  // results
    w.end_object();  // run
    w.end_array();
    w.end_object();
    return w.str();
}

}  // namespace onnxview_cli
