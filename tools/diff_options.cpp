// tools/diff_options.cpp - the values of `onnxview diff`'s options that
// are lists or modes (--ignore, --weights, --fail-on), parsed.
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "diff.hpp"

namespace onnxview_cli {

bool parse_ignore(std::string_view list, onnxview::diff_ignore& out) {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        if (item == "doc_string") out.doc_string = true;
        else if (item == "producer") out.producer = true;
        else if (item == "metadata") out.metadata = true;
        else if (item == "names") out.names = true;
        else if (item == "value_info") out.value_info = true;
        else return false;
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    return true;
}

namespace {

// A number of strtod's syntax filling all of `text`, finite and not negative.
bool parse_figure(std::string_view text, double& out) {
    const std::string s(text);
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out) && out >= 0;
}

}  // namespace

bool parse_weights(std::string_view text, onnxview::diff_options& out) {
    using onnxview::weights_comparison;
    if (text == "exact") return out.weights = weights_comparison::exact, true;
    if (text == "none") return out.weights = weights_comparison::none, true;
    const std::string_view prefix = "allclose";
    if (text.substr(0, prefix.size()) != prefix) return false;
    out.weights = weights_comparison::allclose;
    text.remove_prefix(prefix.size());
    if (text.empty()) return true;
    if (text[0] != ':') return false;
    text.remove_prefix(1);
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (item.substr(0, 5) == "rtol=") {
            if (!parse_figure(item.substr(5), out.tolerance.rtol)) return false;
        } else if (item.substr(0, 5) == "atol=") {
            if (!parse_figure(item.substr(5), out.tolerance.atol)) return false;
        } else {
            return false;
        }
    }
    return true;
}

bool parse_fail_on(std::string_view list, failing& out) {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        if (item == "signature") out.signature = true;
        else if (item == "graph") out.graph = true;
        else if (item == "weights") out.weights = true;
        else return false;
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    return true;
}

}  // namespace onnxview_cli
