// src/compare/diff_report.cpp - a model_diff as text lines and as JSON
// (onnxview/compare/diff_report.hpp), and the option words of the reports'
// callers parsed.
#include "onnxview/compare/diff_report.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "onnxview/display.hpp"
#include "onnxview/json_writer.hpp"

namespace onnxview {

namespace {

std::string figure(double v) {
    if (std::isnan(v)) return "nan";  // printf may write "-nan"
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string count(std::size_t n) { return std::to_string(n); }

// The line's tail for change_kind::values: how far the values are.
std::string values_text(const model_change& c, const diff_options& options) {
    if (!c.figures) return "values differ";
    const value_difference& d = *c.figures;
    std::string out = std::to_string(d.differing) + " of " + std::to_string(d.count) + " values differ, first at " +
                      std::to_string(d.first_index);
    if (c.string_values) return out;
    if (d.nan_mismatches != 0) out += ", " + std::to_string(d.nan_mismatches) + " NaN against a number";
    out += ", max abs " + figure(d.max_abs) + ", max rel " + figure(d.max_rel) + ", mean abs " + figure(d.mean_abs) +
           ", RMS " + figure(d.rms) + ", cosine " + figure(d.cosine);
    if (options.weights == weights_comparison::allclose)
        out += ", " + std::to_string(d.beyond_tolerance) + " beyond rtol " + figure(options.tolerance.rtol) +
               " atol " + figure(options.tolerance.atol);
    return out;
}

std::string what(const model_change& c) { return change_subject_name(c.what); }

// What a change is about, as its line starts: "opset 'ai.onnx.ml'",
// "graph: node 'conv1'", "initializer 'w' in graph.node[2]...".
std::string subject_text(const model_change& c) {
    switch (c.section) {
        case diff_section::graph:
            if (c.what == change_subject::node) return c.scope + ": node " + c.subject;
            return c.scope;
        case diff_section::weights:
        case diff_section::layout: {
            std::string out = what(c) + " " + quoted(c.subject);
            if (!c.part.empty()) out += " " + c.part;
            if (!c.scope.empty()) out += " in " + c.scope;
            return out;
        }
        default: return what(c) + " " + quoted(c.subject);
    }
}

// How an added or removed thing is shown: a node with its op_type.
std::string added_or_removed(const model_change& c) {
    const bool removed = c.kind == change_kind::removed;
    const std::string& shown = removed ? c.before : c.after;
    if (!c.attribute.empty())
        return subject_text(c) + ": attribute " + c.attribute + (removed ? ": removed (was " + shown + ")" : ": added " + shown);
    if (c.what == change_subject::node) return subject_text(c) + " (" + shown + "): " + change_kind_name(c.kind);
    if (c.what == change_subject::scope) return c.scope + ": " + change_kind_name(c.kind) + " (" + shown + ")";
    return subject_text(c) + (removed ? ": removed (was " + shown + ")" : ": added " + shown);
}

std::string hex(const digest128& d) {
    char out[33];
    d.to_hex(out);
    return out;
}

const char* section_title(diff_section s) {
    switch (s) {
        case diff_section::layout: return "layout (not counted)";
        case diff_section::names: return "names (not counted)";
        default: return diff_section_name(s);
    }
}

constexpr diff_section all_sections[] = {diff_section::model, diff_section::signature, diff_section::graph,
                                         diff_section::weights, diff_section::layout, diff_section::names};

void figures_json(json_writer& j, const value_difference& d) {
    j.begin_object();
    j.field("count", d.count);
    j.field("differing", d.differing);
    j.field("first_index", d.first_index);
    j.field("nan_mismatches", d.nan_mismatches);
    j.field("beyond_tolerance", d.beyond_tolerance);
    j.field("max_abs", d.max_abs);
    j.field("max_rel", d.max_rel);
    j.field("mean_abs", d.mean_abs);
    j.field("rms", d.rms);
    j.field("cosine", d.cosine);
    j.end_object();
}

}  // namespace

std::string diff_change_text(const model_change& c, const model_diff& d, const diff_options& options,
                             const diff_report_names& names) {
    const std::string from_to = c.before + " -> " + c.after;
    switch (c.kind) {
        case change_kind::added:
        case change_kind::removed: return added_or_removed(c);
        case change_kind::changed:
            if (!c.attribute.empty()) return subject_text(c) + ": attribute " + c.attribute + ": " + from_to;
            if (c.what == change_subject::doc_string) return "doc_string changed";
            if (c.subject.empty()) return what(c) + ": " + from_to;  // a model field
            return subject_text(c) + ": " + from_to;
        case change_kind::renamed:
            if (c.section == diff_section::names) {
                const std::string first = " (first '" + c.before + "' -> '" + c.after + "')";
                if (c.what == change_subject::nodes)
                    return count(d.matching.renamed) + " of " + count(d.matching.nodes) + " nodes renamed" + first;
                return count(d.matching.values_renamed) + " values renamed" + first;
            }
            return subject_text(c) + ": renamed " + quoted(c.after);
        case change_kind::op_type: return subject_text(c) + ": op_type " + from_to;
        case change_kind::domain: return subject_text(c) + ": domain " + from_to;
        case change_kind::inputs: return subject_text(c) + ": inputs " + from_to;
        case change_kind::outputs: return subject_text(c) + ": outputs " + from_to;
        case change_kind::order: return c.scope + ": nodes in another order";
        case change_kind::element_type: return subject_text(c) + ": element type " + from_to;
        case change_kind::shape: return subject_text(c) + ": shape " + from_to;
        case change_kind::type: return subject_text(c) + ": type " + from_to;
        case change_kind::data_type: return subject_text(c) + ": data type " + from_to;
        case change_kind::values: return subject_text(c) + ": " + values_text(c, options);
        case change_kind::storage: return subject_text(c) + ": " + from_to;
        case change_kind::encoding: return "the files differ in layout only (field order, padding, encodings)";
        case change_kind::unitemized: return "the models differ in a part this report does not itemize (docs/diff.md)";
        case change_kind::values_unread:
            return "weights compared by type and shape only: the external data of '" +
                   (c.subject == "a" ? names.git_a : names.git_b) + "' is not there (git hands over the model alone)";
    }
    return "";
}

std::string diff_report_text(const model_diff& d, const diff_options& options, const diff_report_names& names,
                             std::uint64_t max_changes) {
    std::string out;
    auto c = d.changes.begin();
    for (const diff_section s : all_sections) {
        std::uint64_t shown = 0;
        std::size_t left = 0;
        for (; c != d.changes.end() && c->section == s; ++c) {
            if (shown == 0 && left == 0) out += std::string(section_title(s)) + "\n";
            if (shown == max_changes) {
                ++left;
                continue;
            }
            out += "  " + diff_change_text(*c, d, options, names) + "\n";
            ++shown;
        }
        if (left != 0) out += "  ... " + std::to_string(left) + " more\n";
    }
    if (d.same_computation())
        out += std::string(diff_verdict_text(d.verdict)) + "\n";
    else
        out += std::to_string(d.counts.signature) + " signature, " + std::to_string(d.counts.graph) + " graph, " +
               std::to_string(d.counts.weights) + " weight changes\n";
    return out;
}

std::string diff_report_json(const model_diff& d, const diff_options& options, const diff_report_names& names) {
    json_writer j;
    j.begin_object();
    j.field("version", 2);
    j.field("a", names.a);
    j.field("b", names.b);
    j.field("digest_a", hex(d.digest_a));
    j.field("digest_b", hex(d.digest_b));
    j.field("result", diff_verdict_text(d.verdict));
    j.field("same_computation", d.same_computation());
    j.key("counts");
    j.begin_object();
    j.field("signature", static_cast<std::uint64_t>(d.counts.signature));
    j.field("graph", static_cast<std::uint64_t>(d.counts.graph));
    j.field("weights", static_cast<std::uint64_t>(d.counts.weights));
    j.end_object();
    j.key("matching");
    j.begin_object();
    j.field("nodes", static_cast<std::uint64_t>(d.matching.nodes));
    j.field("matched", static_cast<std::uint64_t>(d.matching.matched));
    j.field("renamed", static_cast<std::uint64_t>(d.matching.renamed));
    j.field("values_renamed", static_cast<std::uint64_t>(d.matching.values_renamed));
    j.end_object();
    auto c = d.changes.begin();
    for (const diff_section s : all_sections) {
        j.key(diff_section_name(s));
        j.begin_array();
        for (; c != d.changes.end() && c->section == s; ++c) {
            j.begin_object();
            j.field("kind", change_kind_name(c->kind));
            j.field("what", change_subject_name(c->what));
            j.field("scope", c->scope);
            j.field("subject", c->subject);
            j.field("part", c->part);
            j.field("attribute", c->attribute);
            j.field("before", c->before);
            j.field("after", c->after);
            j.field("counted", c->counted);
            j.field("text", diff_change_text(*c, d, options, names));
            if (c->figures) {
                j.key("figures");
                figures_json(j, *c->figures);
            }
            j.end_object();
        }
        j.end_array();
    }
    j.end_object();
    return j.str();
}

namespace {

// Calls take(item) for each item of a comma-separated list; false when one
// is empty ("a,,b", "a,") or take refuses one.
template <class Take>
bool each_item(std::string_view list, Take take) {
    for (;;) {
        const std::size_t comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        if (item.empty() || !take(item)) return false;
        if (comma == std::string_view::npos) return true;
        list.remove_prefix(comma + 1);
    }
}

// A decimal number filling all of `text` (strtod's syntax, but starting with a
// digit or a point: no sign, space, "inf" or "nan"), not negative and finite.
bool parse_figure(std::string_view text, double& out) {
    if (text.empty() || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.')) return false;
    const std::string s(text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
    out = v;
    return true;
}

}  // namespace

bool parse_diff_ignore(std::string_view list, diff_ignore& out) {
    if (list.empty()) return true;
    diff_ignore parsed = out;
    const bool ok = each_item(list, [&parsed](std::string_view item) {
        if (item == "doc_string") parsed.doc_string = true;
        else if (item == "producer") parsed.producer = true;
        else if (item == "metadata") parsed.metadata = true;
        else if (item == "names") parsed.names = true;
        else if (item == "value_info") parsed.value_info = true;
        else return false;
        return true;
    });
    if (ok) out = parsed;
    return ok;
}

bool parse_diff_weights(std::string_view text, diff_options& out) {
    if (text == "exact") return out.weights = weights_comparison::exact, true;
    if (text == "none") return out.weights = weights_comparison::none, true;
    const std::string_view prefix = "allclose";
    if (text.substr(0, prefix.size()) != prefix) return false;
    text.remove_prefix(prefix.size());
    value_tolerance tolerance = out.tolerance;
    if (!text.empty()) {
        if (text[0] != ':') return false;
        text.remove_prefix(1);
        const bool ok = each_item(text, [&tolerance](std::string_view item) {
            if (item.substr(0, 5) == "rtol=") return parse_figure(item.substr(5), tolerance.rtol);
            if (item.substr(0, 5) == "atol=") return parse_figure(item.substr(5), tolerance.atol);
            return false;
        });
        if (!ok) return false;
    }
    out.weights = weights_comparison::allclose;
    out.tolerance = tolerance;
    return true;
}

}  // namespace onnxview
