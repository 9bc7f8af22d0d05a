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
    static std::optional<dim_expr> add_constant(const dim_expr& a, std::int64_t c);
    static std::optional<dim_expr> scale(const dim_expr& a, std::int64_t c);

    // Every term, the constant first when not 0.
    static std::vector<dim_term> all_terms(const dim_expr& e) {
        std::vector<dim_term> terms;
        terms.reserve(e.terms().size() + 1);
        if (e.constant_ != 0) terms.push_back(dim_term{{}, e.constant_});
        terms.insert(terms.end(), e.terms().begin(), e.terms().end());
        return terms;
    }

    // Sorts, merges equal monomials and drops zeros; nullopt past the limits
    // or on overflow.
    static std::optional<dim_expr> finish(std::vector<dim_term> terms) {
        std::stable_sort(terms.begin(), terms.end(), monomial_less);
        std::vector<dim_term> merged;
        for (dim_term& t : terms) {
            if (degree(t) > dim_expr::max_degree) return std::nullopt;
            if (!merged.empty() && same_monomial(merged.back(), t)) {
                if (!checked_add(merged.back().coefficient, t.coefficient, merged.back().coefficient))
                    return std::nullopt;
            } else {
                merged.push_back(std::move(t));
            }
        }
        dim_expr out;
        std::vector<dim_term> symbolic;
        for (dim_term& t : merged) {
            if (t.coefficient == 0) continue;
            if (t.factors.empty()) out.constant_ = t.coefficient;
            else symbolic.push_back(std::move(t));
        }
        if (symbolic.size() + (out.constant_ != 0) > dim_expr::max_terms) return std::nullopt;
        set_terms(out, std::move(symbolic));
        return out;
    }

    static void set_terms(dim_expr& e, std::vector<dim_term> terms) {
        if (terms.empty()) e.terms_.reset();
        else e.terms_ = std::make_shared<const std::vector<dim_term>>(std::move(terms));
    }
};

dim_expr::dim_expr(std::int64_t constant) : constant_(constant) {}

const std::vector<dim_term>& dim_expr::no_terms() noexcept {
    static const std::vector<dim_term> none;
    return none;
}

dim_expr dim_expr::symbol(std::string_view name) {
    dim_expr e;
    dim_expr_builder::set_terms(e, {dim_term{{dim_factor{std::string(name), 1}}, 1}});
    return e;
}

bool dim_expr::operator==(const dim_expr& o) const {
    const std::vector<dim_term>& a = terms();
    const std::vector<dim_term>& b = o.terms();
    if (constant_ != o.constant_ || a.size() != b.size()) return false;
    if (terms_ == o.terms_) return true;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].coefficient != b[i].coefficient || !same_monomial(a[i], b[i])) return false;
    return true;
}

std::string dim_expr::str() const {
    if (is_constant()) return std::to_string(constant_);
    const std::vector<dim_term>& terms = *terms_;
    std::string out;
    // The constant term is written last: "2*seq + 1".
    for (std::size_t k = 0; k <= terms.size(); ++k) {
        const dim_term constant{{}, constant_};
        const dim_term& t = k < terms.size() ? terms[k] : constant;
        if (t.coefficient == 0) continue;
        const bool negative = t.coefficient < 0;
        const std::uint64_t magnitude = negative ? 0u - static_cast<std::uint64_t>(t.coefficient)
                                                 : static_cast<std::uint64_t>(t.coefficient);
        if (k == 0) out += negative ? "-" : "";
        else out += negative ? " - " : " + ";
        append_term(out, t, magnitude);
    }
    return out;
}

// a + c and a x c for a constant c keep the terms' order: no sort, and no
// allocation when a is constant too (the common case of concrete shapes).
std::optional<dim_expr> dim_expr_builder::add_constant(const dim_expr& a, std::int64_t c) {
    dim_expr out = a;  // the terms shared
    if (!checked_add(a.constant_term(), c, out.constant_)) return std::nullopt;
    if (out.terms().size() + (out.constant_ != 0) > dim_expr::max_terms) return std::nullopt;
    return out;
}

std::optional<dim_expr> dim_expr_builder::scale(const dim_expr& a, std::int64_t c) {
    if (c == 0) return dim_expr();
    if (c == 1) return a;
    dim_expr out;
    if (!checked_multiply(a.constant_, c, out.constant_)) return std::nullopt;
    std::vector<dim_term> terms = a.terms();
    for (dim_term& t : terms)
        if (!checked_multiply(t.coefficient, c, t.coefficient)) return std::nullopt;
    set_terms(out, std::move(terms));
    return out;
}

std::optional<dim_expr> add(const dim_expr& a, const dim_expr& b) {
    if (b.is_constant()) return dim_expr_builder::add_constant(a, b.constant_);
    if (a.is_constant()) return dim_expr_builder::add_constant(b, a.constant_);
    std::vector<dim_term> terms = dim_expr_builder::all_terms(a);
    const std::vector<dim_term> more = dim_expr_builder::all_terms(b);
    terms.insert(terms.end(), more.begin(), more.end());
    return dim_expr_builder::finish(std::move(terms));
}

std::optional<dim_expr> subtract(const dim_expr& a, const dim_expr& b) {
    std::vector<dim_term> terms = dim_expr_builder::all_terms(a);
    for (const dim_term& t : dim_expr_builder::all_terms(b)) {
        std::int64_t negated = 0;
        if (!checked_multiply(t.coefficient, -1, negated)) return std::nullopt;
        terms.push_back(dim_term{t.factors, negated});
    }
    return dim_expr_builder::finish(std::move(terms));
}

std::optional<dim_expr> multiply(const dim_expr& a, const dim_expr& b) {
    if (b.is_constant()) return dim_expr_builder::scale(a, b.constant_);
    if (a.is_constant()) return dim_expr_builder::scale(b, a.constant_);
    const std::vector<dim_term> xs = dim_expr_builder::all_terms(a);
    const std::vector<dim_term> ys = dim_expr_builder::all_terms(b);
    if (xs.size() * ys.size() > dim_expr::max_terms * dim_expr::max_terms) return std::nullopt;
    std::vector<dim_term> terms;
    terms.reserve(xs.size() * ys.size());
    for (const dim_term& x : xs) {
        for (const dim_term& y : ys) {
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
    std::vector<dim_term> terms = dim_expr_builder::all_terms(a);
    for (dim_term& t : terms) {
        if (d == -1 && t.coefficient == int64_min) return std::nullopt;
        if (t.coefficient % d != 0) return std::nullopt;
        t.coefficient /= d;
    }
    return dim_expr_builder::finish(std::move(terms));
}

namespace {

dim_order sign_of_coefficients(const dim_expr& d) {
    bool any_negative = d.constant_term() < 0, any_positive = d.constant_term() > 0;
    for (const dim_term& t : d.terms()) (t.coefficient < 0 ? any_negative : any_positive) = true;
    if (!any_negative) return dim_order::greater_or_equal;
    if (!any_positive) return dim_order::less_or_equal;
    return dim_order::unordered;
}

// d with every symbol s replaced by s + 1: its coefficients all >= 0 (or
// all <= 0) then prove the sign of d for every value of the symbols >= 1.
std::optional<dim_expr> shifted_by_one(const dim_expr& d) {
    dim_expr sum(d.constant_term());
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
