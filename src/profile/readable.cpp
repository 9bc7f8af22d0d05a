// src/profile/readable.cpp - numbers and polynomials for people: the text
// report's units, dim aliases and leading terms (profile.hpp).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "onnxview/profile.hpp"

namespace onnxview {
namespace {

// Three significant digits: "7.09", "28.4", "284".
std::string three_digits(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 9.995 ? "%.2f" : v < 99.95 ? "%.1f" : "%.0f", v);
    return buf;
}

std::string scaled(double v, double base, const char* const* units, std::size_t unit_count, const char* smallest) {
    const bool negative = v < 0;
    if (negative) v = -v;
    std::string sign = negative ? "-" : "";
    if (v < base) return sign + std::to_string(static_cast<std::uint64_t>(v)) + smallest;
    std::size_t u = 0;
    v /= base;
    // 999.7 k is shown as 1.00 M, not "1000 k".
    while (u + 1 < unit_count && v >= 999.5) {
        v /= base;
        ++u;
    }
    return sign + three_digits(v) + " " + units[u];
}

const char* const count_units[] = {"k", "M", "G", "T", "P", "E"};
const char* const byte_units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

std::string count_text(double v) { return scaled(v, 1000.0, count_units, 6, ""); }
std::string bytes_text(double v) { return scaled(v, 1024.0, byte_units, 6, " bytes"); }

bool short_identifier(std::string_view s) {
    if (s.empty() || s.size() > 12 || (s[0] >= '0' && s[0] <= '9')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::uint32_t degree(const dim_term& t) {
    std::uint32_t d = 0;
    for (const dim_factor& f : t.factors) d += f.power;
    return d;
}

void collect(const dim_expr& e, std::vector<std::string_view>& order, std::unordered_set<std::string_view>& seen) {
    for (const dim_term& t : e.terms())
        for (const dim_factor& f : t.factors)
            if (seen.insert(f.name).second) order.push_back(f.name);
}

void collect(const quantity& q, std::vector<std::string_view>& order, std::unordered_set<std::string_view>& seen) {
    if (q.known) collect(q.value, order, seen);
}

}  // namespace

std::string readable_count(std::uint64_t n) { return count_text(static_cast<double>(n)); }
std::string readable_bytes(std::uint64_t n) { return bytes_text(static_cast<double>(n)); }

dim_legend::dim_legend(const model_profile& p) {
    std::vector<std::string_view> order;
    std::unordered_set<std::string_view> seen;
    collect(p.totals.macs, order, seen);
    collect(p.totals.flops, order, seen);
    collect(p.totals.peak_activation_bytes, order, seen);
    for (const model_profile::peak_candidate& c : p.peak_candidates) collect(c.bytes, order, seen);
    for (const node_profile& n : p.nodes) {
        for (const profiled_output& o : n.outputs)
            for (const quantity& d : o.shape.dims) collect(d, order, seen);
        collect(n.macs, order, seen);
        collect(n.flops, order, seen);
    }
    // The model's own dims first, then the symbols made of expressions over them ("floor((H - 1)/2)").
    const auto derived = std::stable_partition(order.begin(), order.end(), [](std::string_view name) {
        return name.find('(') == std::string_view::npos;
    });
    // Shorter expressions first: floor((H - 1)/2) before floor((floor((H - 1)/2))/2).
    std::stable_sort(derived, order.end(), [](std::string_view a, std::string_view b) { return a.size() < b.size(); });
    order_.assign(order.begin(), order.end());
    static const char* const letters[] = {"N", "M", "K", "L", "P", "Q", "R", "T", "U", "V", "W"};
    std::size_t next_letter = 0, next_number = 1;
    for (std::string_view name : order) {
        if (short_identifier(name)) continue;
        std::string alias;
        do {
            alias = next_letter < sizeof letters / sizeof *letters ? letters[next_letter++]
                                                                   : "D" + std::to_string(next_number++);
        } while (seen.count(alias) != 0);
        aliases_.emplace_back(std::move(alias), std::string(name));
    }
}

std::string dim_legend::described(std::string_view name) const {
    // Longest first: a name inside another ("H" in "floor((H - 1)/2)") is replaced after it.
    std::vector<const std::pair<std::string, std::string>*> by_length;
    for (const auto& a : aliases_)
        if (a.second != name) by_length.push_back(&a);
    std::stable_sort(by_length.begin(), by_length.end(),
                     [](const auto* a, const auto* b) { return a->second.size() > b->second.size(); });
    std::string out(name);
    for (const auto* a : by_length)
        for (std::size_t at = out.find(a->second); at != std::string::npos; at = out.find(a->second, at + a->first.size()))
            out.replace(at, a->second.size(), a->first);
    return out;
}

std::size_t dim_legend::rank(std::string_view name) const {
    for (std::size_t i = 0; i < order_.size(); ++i)
        if (order_[i] == name) return i;
    return order_.size();
}

std::string_view dim_legend::shown(std::string_view name) const {
    for (const auto& [alias, dim] : aliases_)
        if (dim == name) return alias;
    return name;
}

std::string readable_expr(const dim_expr& e, const dim_legend& legend, bool exact, bool bytes, std::size_t max_terms) {
    if (e.is_constant())
        return exact ? std::to_string(e.constant_term())
               : bytes ? bytes_text(static_cast<double>(e.constant_term()))
                       : count_text(static_cast<double>(e.constant_term()));
    // Inside a polynomial a byte count under 1 KiB is "48 B": "48 bytes*N" reads as words.
    auto magnitude_text = [&](std::uint64_t m) {
        if (exact) return std::to_string(m);
        if (!bytes) return count_text(static_cast<double>(m));
        return m < 1024 ? std::to_string(m) + " B" : bytes_text(static_cast<double>(m));
    };
    // Highest degree first: the terms that grow fastest lead.
    std::vector<const dim_term*> terms;
    for (const dim_term& t : e.terms()) terms.push_back(&t);
    // ... and of one degree the larger coefficients first.
    std::stable_sort(terms.begin(), terms.end(), [](const dim_term* a, const dim_term* b) {
        if (degree(*a) != degree(*b)) return degree(*a) > degree(*b);
        const auto magnitude = [](std::int64_t c) { return c < 0 ? -static_cast<double>(c) : static_cast<double>(c); };
        return magnitude(a->coefficient) > magnitude(b->coefficient);
    });
    const std::size_t total = terms.size() + (e.constant_term() != 0 ? 1 : 0);
    const std::size_t shown_terms = exact ? total : std::min(total, std::max<std::size_t>(max_terms, 1));
    std::string out;
    for (std::size_t i = 0; i < shown_terms; ++i) {
        const std::int64_t c = i < terms.size() ? terms[i]->coefficient : e.constant_term();
        const std::uint64_t magnitude =
            c < 0 ? static_cast<std::uint64_t>(-(c + 1)) + 1 : static_cast<std::uint64_t>(c);
        if (i == 0) out += c < 0 ? "-" : "";
        else out += c < 0 ? " - " : " + ";
        if (i >= terms.size()) {
            out += magnitude_text(magnitude);
            continue;
        }
        bool first = true;
        if (magnitude != 1) {
            out += magnitude_text(magnitude);
            first = false;
        }
        // In the legend's order: the model's dims as first met, then the symbols made of them.
        std::vector<const dim_factor*> factors;
        for (const dim_factor& f : terms[i]->factors) factors.push_back(&f);
        std::stable_sort(factors.begin(), factors.end(), [&legend](const dim_factor* a, const dim_factor* b) {
            return legend.rank(a->name) < legend.rank(b->name);
        });
        for (const dim_factor* fp : factors) {
            const dim_factor& f = *fp;
            if (!first) out += '*';
            first = false;
            out += legend.shown(f.name);
            if (f.power != 1) out += '^' + std::to_string(f.power);
        }
    }
    if (shown_terms < total) out += " + ...";
    return out;
}

std::string readable_quantity(const quantity& q, const dim_legend& legend, bool exact, bool bytes) {
    return q.known ? readable_expr(q.value, legend, exact, bytes) : std::string("?");
}

std::string readable_shape(const value_shape& s, const dim_legend& legend) {
    if (!s.rank_known) return "?";
    std::string out = "[";
    for (std::size_t i = 0; i < s.dims.size(); ++i) {
        if (i) out += ',';
        out += readable_quantity(s.dims[i], legend, true);
    }
    return out + "]";
}

bool grows_faster(const quantity& a, const quantity& b) {
    if (!a.known || !b.known) return a.known && !b.known;
    // (degree, the sum of that degree's coefficients); a constant has degree 0.
    auto lead = [](const dim_expr& e) {
        std::uint32_t top = 0;
        double sum = static_cast<double>(e.constant_term());
        for (const dim_term& t : e.terms()) {
            const std::uint32_t d = degree(t);
            if (d > top) {
                top = d;
                sum = 0;
            }
            if (d == top) sum += static_cast<double>(t.coefficient);
        }
        return std::make_pair(top, sum);
    };
    return lead(a.value) > lead(b.value);
}

}  // namespace onnxview
