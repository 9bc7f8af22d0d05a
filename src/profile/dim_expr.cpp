// src/profile/dim_expr.cpp - polynomials in named dimensions, checked.
//
// Canonical form: terms sorted by (degree, factors), at most one term per
// monomial, no zero coefficient. Every operation builds its result through
// dim_expr_builder::finish(), which restores the form and applies the size
// limits, so no caller can make a non-canonical polynomial.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/profile.hpp"

namespace onnxview {
namespace {

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();

bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& out) {
    if ((b > 0 && a > int64_max - b) || (b < 0 && a < int64_min - b)) return false;
    out = a + b;
    return true;
}

bool checked_multiply(std::int64_t a, std::int64_t b, std::int64_t& out) {
    if (a == 0 || b == 0) {
        out = 0;
        return true;
    }
    // -1 x INT64_MIN is the one product whose division check below divides out of range.
    if ((a == -1 && b == int64_min) || (b == -1 && a == int64_min)) return false;
    const std::int64_t p = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    if (p / b != a) return false;
    out = p;
    return true;
}

std::uint32_t degree(const dim_term& t) {
    std::uint32_t d = 0;
    for (const dim_factor& f : t.factors) d += f.power;
    return d;
}

bool monomial_less(const dim_term& a, const dim_term& b) {
    const std::uint32_t da = degree(a), db = degree(b);
    if (da != db) return da < db;
    return std::lexicographical_compare(
        a.factors.begin(), a.factors.end(), b.factors.begin(), b.factors.end(),
        [](const dim_factor& x, const dim_factor& y) { return x.name != y.name ? x.name < y.name : x.power < y.power; });
}

bool same_monomial(const dim_term& a, const dim_term& b) { return a.factors == b.factors; }

// Appends "coefficient*factors" with the sign handled by the caller.
void append_term(std::string& out, const dim_term& t, std::uint64_t magnitude) {
    bool first = true;
    if (magnitude != 1 || t.factors.empty()) {
        out += std::to_string(magnitude);
        first = false;
    }
    for (const dim_factor& f : t.factors) {
        if (!first) out += '*';
        first = false;
        out += f.name;
        if (f.power != 1) out += '^' + std::to_string(f.power);
    }
}

}  // namespace

struct dim_expr_builder {
    // Sorts, merges equal monomials and drops zeros; nullopt past the limits
    // or on overflow.
    static std::optional<dim_expr> finish(std::vector<dim_term> terms) {
        std::stable_sort(terms.begin(), terms.end(), monomial_less);
        dim_expr out;
        for (dim_term& t : terms) {
            if (degree(t) > dim_expr::max_degree) return std::nullopt;
            if (!out.terms_.empty() && same_monomial(out.terms_.back(), t)) {
                if (!checked_add(out.terms_.back().coefficient, t.coefficient, out.terms_.back().coefficient))
                    return std::nullopt;
            } else {
                out.terms_.push_back(std::move(t));
            }
        }
        out.terms_.erase(std::remove_if(out.terms_.begin(), out.terms_.end(),
                                        [](const dim_term& t) { return t.coefficient == 0; }),
                         out.terms_.end());
        if (out.terms_.size() > dim_expr::max_terms) return std::nullopt;
        return out;
    }
};

dim_expr::dim_expr(std::int64_t constant) {
    if (constant != 0) terms_.push_back(dim_term{{}, constant});
}

dim_expr dim_expr::symbol(std::string_view name) {
    dim_expr e;
    e.terms_.push_back(dim_term{{dim_factor{std::string(name), 1}}, 1});
    return e;
}

bool dim_expr::is_constant() const noexcept {
    return terms_.empty() || (terms_.size() == 1 && terms_[0].factors.empty());
}

std::int64_t dim_expr::constant_term() const noexcept {
    return !terms_.empty() && terms_[0].factors.empty() ? terms_[0].coefficient : 0;
}

bool dim_expr::operator==(const dim_expr& o) const {
    if (terms_.size() != o.terms_.size()) return false;
    for (std::size_t i = 0; i < terms_.size(); ++i)
        if (terms_[i].coefficient != o.terms_[i].coefficient || !same_monomial(terms_[i], o.terms_[i])) return false;
    return true;
}

std::string dim_expr::str() const {
    if (terms_.empty()) return "0";
    std::string out;
    // The constant term (first in canonical order) is written last: "2*seq + 1".
    const bool has_constant = terms_[0].factors.empty();
    const std::size_t n = terms_.size();
    for (std::size_t k = 0; k < n; ++k) {
        const dim_term& t = terms_[has_constant ? (k + 1) % n : k];
        const bool negative = t.coefficient < 0;
        const std::uint64_t magnitude = negative ? 0u - static_cast<std::uint64_t>(t.coefficient)
                                                 : static_cast<std::uint64_t>(t.coefficient);
        if (k == 0) out += negative ? "-" : "";
        else out += negative ? " - " : " + ";
        append_term(out, t, magnitude);
    }
    return out;
}

std::optional<dim_expr> add(const dim_expr& a, const dim_expr& b) {
    std::vector<dim_term> terms = a.terms_;
    terms.insert(terms.end(), b.terms_.begin(), b.terms_.end());
    return dim_expr_builder::finish(std::move(terms));
}

std::optional<dim_expr> subtract(const dim_expr& a, const dim_expr& b) {
    std::vector<dim_term> terms = a.terms_;
    for (const dim_term& t : b.terms_) {
        std::int64_t negated = 0;
        if (!checked_multiply(t.coefficient, -1, negated)) return std::nullopt;
        terms.push_back(dim_term{t.factors, negated});
    }
    return dim_expr_builder::finish(std::move(terms));
}

std::optional<dim_expr> multiply(const dim_expr& a, const dim_expr& b) {
    if (a.terms_.size() * b.terms_.size() > dim_expr::max_terms * dim_expr::max_terms) return std::nullopt;
    std::vector<dim_term> terms;
    terms.reserve(a.terms_.size() * b.terms_.size());
    for (const dim_term& x : a.terms_) {
        for (const dim_term& y : b.terms_) {
            dim_term t;
            if (!checked_multiply(x.coefficient, y.coefficient, t.coefficient)) return std::nullopt;
            // Merge two sorted factor lists, adding the powers of a shared name.
            std::size_t i = 0, j = 0;
            while (i < x.factors.size() || j < y.factors.size()) {
                if (j == y.factors.size() || (i < x.factors.size() && x.factors[i].name < y.factors[j].name)) {
                    t.factors.push_back(x.factors[i++]);
                } else if (i == x.factors.size() || y.factors[j].name < x.factors[i].name) {
                    t.factors.push_back(y.factors[j++]);
                } else {
                    dim_factor f = x.factors[i++];
                    f.power += y.factors[j++].power;
                    if (f.power > dim_expr::max_degree) return std::nullopt;
                    t.factors.push_back(std::move(f));
                }
            }
            terms.push_back(std::move(t));
        }
    }
    return dim_expr_builder::finish(std::move(terms));
}

std::optional<dim_expr> divide_exact(const dim_expr& a, std::int64_t d) {
    if (d == 0) return std::nullopt;
    std::vector<dim_term> terms = a.terms_;
    for (dim_term& t : terms) {
        if (d == -1 && t.coefficient == int64_min) return std::nullopt;
        if (t.coefficient % d != 0) return std::nullopt;
        t.coefficient /= d;
    }
    return dim_expr_builder::finish(std::move(terms));
}

namespace {

dim_order sign_of_coefficients(const dim_expr& d) {
    bool any_negative = false, any_positive = false;
    for (const dim_term& t : d.terms()) (t.coefficient < 0 ? any_negative : any_positive) = true;
    if (!any_negative) return dim_order::greater_or_equal;
    if (!any_positive) return dim_order::less_or_equal;
    return dim_order::unordered;
}

// d with every symbol s replaced by s + 1: its coefficients all >= 0 (or
// all <= 0) then prove the sign of d for every value of the symbols >= 1.
std::optional<dim_expr> shifted_by_one(const dim_expr& d) {
    dim_expr sum;
    for (const dim_term& t : d.terms()) {
        std::optional<dim_expr> term = dim_expr(t.coefficient);
        for (const dim_factor& f : t.factors) {
            const std::optional<dim_expr> s = add(dim_expr::symbol(f.name), dim_expr(1));
            for (std::uint32_t k = 0; k < f.power && term; ++k) term = multiply(*term, *s);
        }
        if (!term) return std::nullopt;
        std::optional<dim_expr> next = add(sum, *term);
        if (!next) return std::nullopt;
        sum = std::move(*next);
    }
    return sum;
}

}  // namespace

dim_order compare(const dim_expr& a, const dim_expr& b) {
    const std::optional<dim_expr> d = subtract(a, b);
    if (!d) return dim_order::unordered;
    const dim_order order = sign_of_coefficients(*d);
    if (order != dim_order::unordered) return order;
    const std::optional<dim_expr> shifted = shifted_by_one(*d);
    return shifted ? sign_of_coefficients(*shifted) : dim_order::unordered;
}

bool value_shape::complete() const noexcept {
    if (!rank_known) return false;
    for (const quantity& d : dims)
        if (!d.known) return false;
    return true;
}

quantity value_shape::element_count() const {
    if (!complete()) return quantity();
    dim_expr n(1);
    for (const quantity& d : dims) {
        std::optional<dim_expr> p = multiply(n, d.value);
        if (!p) return quantity();
        n = std::move(*p);
    }
    return quantity(std::move(n));
}

std::string value_shape::str() const {
    if (!rank_known) return "?";
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i) out += ',';
        out += dims[i].str();
    }
    return out + "]";
}

}  // namespace onnxview
