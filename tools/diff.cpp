// tools/diff.cpp - `onnxview diff A B`: what differs between two models,
// section by section (docs/diff.md): the weights section and the command
// (--git too); the model and signature sections are diff_model.cpp, the
// graph section diff_graph.cpp (nodes paired by diff_match.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "diff.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/compare/values.hpp"
#include "onnxview/enums.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/traverse.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* a = nullptr;
    const char* b = nullptr;
    const char* weights = "exact";
    const char* ignore = "";
    const char* match = "name";
    const char* fail_on = "";
    std::uint64_t max_changes = std::numeric_limits<std::uint64_t>::max();
    bool json = false;
    bool git = false;
    std::vector<const char*> more;  // --git: the five arguments after A and B
    std::string git_a, git_b;       // --git: "a/PATH", "b/PATH", for messages
};

command_line make_command_line(arguments& a) {
    command_line cl{"diff",
            "what differs between two models, and whether they compute the same",
            "Compares model A (old) with model B (new) and prints what differs, in\n"
            "sections: model (ir_version, opsets, producer, model version, metadata),\n"
            "signature (inputs and outputs: added, removed, element type, shape), graph\n"
            "(nodes paired by name, unnamed ones by structure, in every graph,\n"
            "subgraph and function: added, removed, op_type, domain, inputs, outputs,\n"
            "attributes old -> new), weights (initializers and Constant tensors: added,\n"
            "removed, type, shape, and how far their values are: differing count, first\n"
            "index, max abs, max rel, mean abs, RMS, cosine), layout (where payloads are\n"
            "stored; not counted), names (--match=auto: renames; not counted). The\n"
            "last line is `identical`, `same computation, layout differs`, `same\n"
            "computation, names differ`, `same computation, weights within tolerance`,\n"
            "or `N signature, M graph, K weight changes`. Whether the models compute\n"
            "the same is decided by their `onnxview hash` digests (made without names\n"
            "or values when only those differ, and are explained).\n",
            "exit status: 0 same computation, 1 the models differ (with --fail-on: a\n"
            "listed section changed), 2 usage error or a model that cannot be read\n",
            {text("weights", 0, "MODE", a.weights, "exact, none or allclose:rtol=R,atol=A",
                  "exact (default): compare every weight's values; none: read no\n"
                  "payload, compare weights by type and shape only (and decide\n"
                  "`same computation` without their values); allclose:rtol=R,atol=A:\n"
                  "a weight is unchanged when numpy.allclose(A, B, R, A,\n"
                  "equal_nan=True) holds (defaults rtol=1e-05, atol=1e-08)"),
             text("ignore", 0, "LIST", a.ignore, "a list of doc_string, producer, metadata",
                  "leave these model-section lines out (comma-separated:\n"
                  "doc_string, producer, metadata); they are never counted"),
             text("match", 0, "MODE", a.match, "name or auto",
                  "name (default): pair nodes by name, unnamed ones by structure;\n"
                  "auto: by structure too when names differ, and values (inputs,\n"
                  "outputs, initializers) through the nodes: renames are listed,\n"
                  "not counted, except those of graph inputs and outputs"),
             text("fail-on", 0, "LIST", a.fail_on, "a list of signature, graph, weights",
                  "exit 1 only when one of these sections changed\n"
                  "(comma-separated: signature, graph, weights)"),
             number("max-changes", 0, "N", a.max_changes, 0, std::numeric_limits<std::uint64_t>::max(),
                    "list at most N lines per section, then how many were left\n"
                    "out (the counts stay whole; --json lists everything)"),
             flag("json", 0, a.json, "one JSON object (docs/diff.md: \"version\": 1)"),
             flag("git", 0, a.git,
                  "as git's diff.<driver>.command: the operands are git's seven\n"
                  "(PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE); prints\n"
                  "a header line, `model added` or `removed` for /dev/null, weights\n"
                  "by type and shape when git gave no external data, and\n"
                  "exits 0 when the models differ (git stops at a non-zero exit)")},
            {{"A", &a.a}, {"B", &a.b}}};
    cl.more_operands = &a.more;
    return cl;
}

std::string figure(double v) {
    if (std::isnan(v)) return "nan";  // printf may write "-nan"
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// ---- weights ----------------------------------------------------------------

struct weight {
    std::string label;  // "initializer 'w'", "constant 'c'", "... in graph.node[2].attribute[0].g"
    tensor_view tensor;
};

// Initializers, sparse initializers and Constant tensors, by what they are
// and where; other tensor attributes are compared in the graph section.
// Keyed by their labels, with a's names as b calls them (--match=auto);
// each keeps the label it is printed with.
std::map<std::string, weight> weights_of(const model_view& m, const value_names* names, error& failure) {
    std::map<std::string, weight> out;
    failure = for_each_tensor(m, [&out, names](const stored_tensor& st) {
        if (st.origin == tensor_origin::attribute) return;
        std::string ns;
        for (const model_scope* s = st.scope; s != nullptr; s = s->parent)
            if (s->kind == scope_kind::function) {
                ns = "function ";
                text_quote(ns, s->function.domain());
                ns += ':';
                text_quote(ns, s->function.name());
                if (!s->function.overload().empty()) ns += ':', text_quote(ns, s->function.overload());
            }
        std::string_view name;
        if (st.origin == tensor_origin::constant) {
            const auto outputs = st.holder.node.output();
            name = outputs.begin() != outputs.end() ? *outputs.begin() : st.holder.node.name();
        } else {
            name = st.sparse_part ? st.sparse.values().name() : st.tensor.name();
        }
        const char* what = st.origin == tensor_origin::constant      ? "constant "
                           : st.origin == tensor_origin::initializer ? "initializer "
                                                                     : "sparse_initializer ";
        std::string tail;
        if (st.sparse_part) tail += st.sparse_indices ? " indices" : " values";
        if (st.scope->kind != scope_kind::main_graph) {
            tail += " in ";
            append_scope_path(*st.scope, tail);
        }
        const std::string label = what + quoted(name) + tail;
        std::string key = names != nullptr ? what + quoted(names->in_b(ns, name)) + tail : label;
        out[std::move(key)] = weight{label, st.tensor};
    });
    return out;
}

// "[3,3]", and with the data type "FLOAT[3,3]", as type_string writes a value's type.
std::string dims_of(const tensor_view& t) {
    std::string s = "[";
    bool first = true;
    for (std::int64_t d : t.dims()) {
        if (!first) s += ',';
        first = false;
        s += std::to_string(d);
    }
    return s + "]";
}

std::string tensor_type(const tensor_view& t) { return data_type_name(t.data_type()) + dims_of(t); }

std::string where_stored(const tensor_view& t) {
    const result<storage_info> info = describe_storage(t);
    if (!info) return "invalid";
    const storage_info& s = *info;
    std::string out = storage_kind_name(s.kind);
    if (s.kind == storage_kind::external) out += " " + quoted(s.location);
    return out;
}

// How the values of a and b differ, as one line's tail, with its figures
// kept for --json; empty when their element counts differ or they cannot be
// compared as numbers. Errors go into `failure`.
// With --weights=allclose, values all within the tolerance give no line
// and count in r.tolerated.
std::string value_change(model_file& fa, const tensor_view& a, model_file& fb, const tensor_view& b,
                         const std::string& key, const weights_mode& mode, diff_report& r, error& failure) {
    const result<tensor_data> da = fa.tensor(a);
    const result<tensor_data> db = fb.tensor(b);
    if (!da || !db) {
        failure = !da ? da.err() : db.err();
        return "";
    }
    if (da->scalar_count() != db->scalar_count()) return "";
    const result<value_difference> d = compare_values(*da, *db, mode.tol);
    if (!d) {
        if (d.err().code != errc::bad_data_type) failure = d.err();
        return "";
    }
    if (d->differing == 0) return "";
    if (mode.tolerant && d->beyond_tolerance == 0 && a.data_type() == b.data_type()) {
        ++r.tolerated;
        return "";
    }
    r.values.push_back({key, *d});
    std::string out = std::to_string(d->differing) + " of " + std::to_string(d->count) +
                      " values differ, first at " + std::to_string(d->first_index);
    if (da->info().kind == element_kind::string) return out;
    if (d->nan_mismatches != 0) out += ", " + std::to_string(d->nan_mismatches) + " NaN against a number";
    out += ", max abs " + figure(d->max_abs) + ", max rel " + figure(d->max_rel) + ", mean abs " +
           figure(d->mean_abs) + ", RMS " + figure(d->rms) + ", cosine " + figure(d->cosine);
    if (mode.tolerant)
        out += ", " + std::to_string(d->beyond_tolerance) + " beyond rtol " + figure(mode.tol.rtol) + " atol " +
               figure(mode.tol.atol);
    return out;
}

void remember_digest(void* user, const tensor_view& t, const digest128& d) {
    static_cast<tensor_digests*>(user)->emplace(t.wire_message().begin(), d);
}

// `base` with each payload's pages given back once hashed (release_payload),
// and, given `seen`, each tensor's digest kept there.
digest_options releasing(const model_file& mf, digest_options base, tensor_digests* seen = nullptr) {
    base.payload_hashed = release_hashed_payload;
    base.user = const_cast<mapped_file*>(&mf.file());
    if (seen != nullptr) {
        base.tensor_hashed = remember_digest;
        base.tensor_user = seen;
    }
    return base;
}

// The digest of `t`: the one model_digest made, or made now.
result<digest128> digest_of(const tensor_view& t, const tensor_digests& seen, const external_payload_source& ext,
                            const model_file& mf) {
    const auto it = seen.find(t.wire_message().begin());
    if (it != seen.end()) return it->second;
    return tensor_digest(t, &ext, releasing(mf, {}));
}

error diff_weights(model_file& fa, model_file& fb, bool values, const weights_mode& mode, const value_names& names,
                   const tensor_digests& seen_a, const tensor_digests& seen_b, diff_report& r) {
    error failure;
    const std::map<std::string, weight> wa = weights_of(fa.model(), &names, failure);
    if (failure) return failure;
    const std::map<std::string, weight> wb = weights_of(fb.model(), nullptr, failure);
    if (failure) return failure;
    const external_payload_source ea = fa.external(), eb = fb.external();
    for (const auto& [key, w] : wa) {
        const auto other = wb.find(key);
        const std::string& at = w.label;  // a's name
        if (other == wb.end()) {
            r.weights.push_back(at + ": removed (was " + tensor_type(w.tensor) + ")");
            continue;
        }
        const tensor_view& a = w.tensor;
        const tensor_view& b = other->second.tensor;
        if (a.data_type() != b.data_type())
            r.weights.push_back(at + ": data type " + data_type_name(a.data_type()) + " -> " + data_type_name(b.data_type()));
        const bool same_dims = dims_of(a) == dims_of(b);
        if (!same_dims) r.weights.push_back(at + ": shape " + dims_of(a) + " -> " + dims_of(b));
        if (where_stored(a) != where_stored(b))
            r.layout.push_back(at + ": " + where_stored(a) + " -> " + where_stored(b));
        if (!values) continue;
        const result<digest128> da = digest_of(a, seen_a, ea, fa);
        const result<digest128> db = digest_of(b, seen_b, eb, fb);
        if (!da) return da.err();
        if (!db) return db.err();
        if (*da == *db) continue;
        const std::size_t tolerated_before = r.tolerated;
        const std::string change = value_change(fa, a, fb, b, at, mode, r, failure);
        if (failure) return failure;
        if (!change.empty()) r.weights.push_back(at + ": " + change);
        else if (same_dims && a.data_type() == b.data_type() && r.tolerated == tolerated_before)
            r.weights.push_back(at + ": values differ");
    }
    for (const auto& [key, w] : wb)
        if (wa.find(key) == wa.end()) r.weights.push_back(key + ": added " + tensor_type(w.tensor));
    return error();
}

// The names section (--match=auto): how many nodes and values of a are
// called otherwise in b, with the first of each, and the nodes left unpaired.
void names_section(const value_names& n, std::vector<std::string>& out) {
    if (n.nodes_renamed != 0)
        out.push_back(std::to_string(n.nodes_renamed) + " of " + std::to_string(n.nodes) + " nodes renamed (first " +
                      n.first_node + ")");
    if (n.values_renamed != 0)
        out.push_back(std::to_string(n.values_renamed) + " values renamed (first " + n.first_value + ")");
}

// ---- the command --------------------------------------------------------------

// Whether the two files hold the same bytes, compared in pieces whose pages
// are given back, so that comparing two large files keeps a small resident set.
bool same_bytes(const model_file& fa, const model_file& fb) {
    const std::string_view a = fa.bytes(), b = fb.bytes();
    if (a.size() != b.size()) return false;
    constexpr std::size_t piece = std::size_t(8) << 20;
    for (std::size_t done = 0; done < a.size(); done += piece) {
        const std::size_t n = std::min(piece, a.size() - done);
        const bool equal = a.substr(done, n) == b.substr(done, n);
        release_payload(fa.file(), a.data() + done, n);
        release_payload(fb.file(), b.data() + done, n);
        if (!equal) return false;
    }
    return true;
}

// At most `limit` lines (--max-changes), then how many were left out.
void print_section(const char* title, const std::vector<std::string>& lines, std::uint64_t limit) {
    if (lines.empty()) return;
    std::printf("%s\n", title);
    std::size_t shown = 0;
    for (const std::string& l : lines) {
        if (shown == limit) {
            std::printf("  ... %zu more\n", lines.size() - shown);
            break;
        }
        std::printf("  %s\n", l.c_str());
        ++shown;
    }
}

// Opens a model for diff: any failure is exit 2, with one line.
bool open_for_diff(const char* path, model_file& mf) {
    onnxview::options opts{};
    opts.verify = true;
    int code = exit_ok;
    return open_model("diff", path, opts, mf, code);
}

int fail(const char* path, error e, const model_file& mf) {
    print_error("diff", "cannot compare '" + std::string(path) + "': " + describe(e, mf.bytes().data(), mf.bytes().size()));
    return exit_usage;
}

std::string hex(const digest128& d) {
    char out[33];
    d.to_hex(out);
    return out;
}

// The --json form (docs/diff.md, "version": 1).
void print_json(const arguments& args, const digest128& ha, const digest128& hb, const char* verdict,
                bool equivalent, const diff_report& r) {
    json_writer j;
    j.begin_object();
    j.field("version", 1);
    j.field("a", args.a);
    j.field("b", args.b);
    j.field("digest_a", hex(ha));
    j.field("digest_b", hex(hb));
    j.field("result", verdict);
    j.field("same_computation", equivalent);
    j.key("counts");
    j.begin_object();
    j.field("signature", static_cast<std::uint64_t>(r.signature.size()));
    j.field("graph", static_cast<std::uint64_t>(r.graph.size() + r.model_counted));
    j.field("weights", static_cast<std::uint64_t>(r.weights.size()));
    j.end_object();
    const std::pair<const char*, const std::vector<std::string>*> sections[] = {
        {"model", &r.model}, {"signature", &r.signature}, {"graph", &r.graph}, {"weights", &r.weights},
        {"layout", &r.layout}, {"names", &r.names}};
    for (const auto& [name, lines] : sections) {
        j.key(name);
        j.begin_array();
        for (const std::string& l : *lines) j.value(l);
        j.end_array();
    }
    j.key("values");
    j.begin_array();
    for (const auto& [key, d] : r.values) {
        j.begin_object();
        j.field("tensor", key);
        j.field("count", d.count);
        j.field("differing", d.differing);
        j.field("first_index", d.first_index);
        j.field("nan_mismatches", d.nan_mismatches);
        j.field("max_abs", d.max_abs);
        j.field("max_rel", d.max_rel);
        j.field("mean_abs", d.mean_abs);
        j.field("rms", d.rms);
        j.field("cosine", d.cosine);
        j.end_object();
    }
    j.end_array();
    j.end_object();
    std::fputs(j.str().c_str(), stdout);
}

int compare(arguments& args) {
    weights_mode weights;
    ignored skip;
    failing fail_on;
    const std::string_view match = args.match;
    std::string usage;
    if (!parse_weights(args.weights, weights))
        usage = "--weights is exact, none or allclose:rtol=R,atol=A, not '" + std::string(args.weights) + "'";
    else if (!parse_ignore(args.ignore, skip))
        usage = "--ignore takes doc_string, producer, metadata, not '" + std::string(args.ignore) + "'";
    else if (!parse_fail_on(args.fail_on, fail_on))
        usage = "--fail-on takes signature, graph, weights, not '" + std::string(args.fail_on) + "'";
    else if (match != "name" && match != "auto")
        usage = "--match is name or auto, not '" + std::string(match) + "'";
    if (!usage.empty()) {
        print_error("diff", usage);
        return exit_usage;
    }
    const match_mode mode = match == "auto" ? match_mode::automatic : match_mode::name;
    digest_options digest;
    digest.values = weights.values;
    model_file fa, fb;
    if (!open_for_diff(args.a, fa) || !open_for_diff(args.b, fb)) return exit_usage;
    const external_payload_source ea = fa.external(), eb = fb.external();
    tensor_digests seen_a, seen_b;
    result<digest128> ha = model_digest(fa.model(), &ea, releasing(fa, digest, &seen_a));
    result<digest128> hb = ha ? model_digest(fb.model(), &eb, releasing(fb, digest, &seen_b)) : ha;
    // git hands --git a copy of an old blob alone, without its external data
    // file: then the weights are compared as --weights=none does, and said so.
    const auto missing = [](const result<digest128>& h) {
        return !h && (h.err().sys_errno != 0 || h.err().code == errc::io_resolve_failed);
    };
    std::string without_values;
    if (args.git && digest.values && (missing(ha) || missing(hb))) {
        without_values = std::string("weights compared by type and shape only: the external data of '") +
                         (missing(ha) ? args.git_a : args.git_b) + "' is not there (git hands over the model alone)";
        digest.values = weights.values = false;
        seen_a.clear();
        seen_b.clear();
        ha = model_digest(fa.model(), &ea, releasing(fa, digest, &seen_a));
        hb = ha ? model_digest(fb.model(), &eb, releasing(fb, digest, &seen_b)) : ha;
    }
    if (!ha) return fail(args.a, ha.err(), fa);
    if (!hb) return fail(args.b, hb.err(), fb);
    const bool same = *ha == *hb;

    diff_report r;
    value_names names;
    diff_model(fa.model(), fb.model(), skip, r);
    if (!without_values.empty()) r.model.push_back(without_values);  // not counted
    // The graph first: it finds what a's values are called in b. Equal
    // digests leave it nothing to find (every name, node and attribute it
    // compares is in them, and fuzz_diff_pair holds it to that).
    if (!same)
        if (error e = diff_graphs(fa, fb, digest, mode, names, r, &seen_a, &seen_b)) return fail(args.a, e, fa);
    diff_value_infos(fa.model().graph().input(), fb.model().graph().input(), "input", names, r.signature);
    diff_value_infos(fa.model().graph().output(), fb.model().graph().output(), "output", names, r.signature);
    names_section(names, r.names);
    // Equal digests mean equal weights, by name and scope: their values
    // need no second reading.
    if (error e = diff_weights(fa, fb, digest.values && !same, weights, names, seen_a, seen_b, r)) return fail(args.a, e, fa);
    const std::size_t counted = r.model_counted + r.signature.size() + r.graph.size() + r.weights.size();
    // Renamed nodes and inner values change the digest (names are part of
    // it): with --match=auto that is the same computation when nothing else
    // is listed and the digests without names (and values, which the
    // weights section has compared) agree, so nothing unlisted hides there.
    bool renamed_only = false;
    if (!same && counted == 0 && !r.names.empty()) {
        digest_options nameless = digest;
        nameless.names = false;
        nameless.values = false;
        const result<digest128> na = model_digest(fa.model(), &ea, nameless);
        const result<digest128> nb = model_digest(fb.model(), &eb, nameless);
        renamed_only = na && nb && *na == *nb;
    }
    // Weights within --weights=allclose: the same computation when the
    // digests without values agree, so nothing else hides behind them.
    bool tolerated_only = false;
    if (!same && counted == 0 && r.names.empty() && r.tolerated != 0) {
        digest_options shapes = digest;
        shapes.values = false;
        const result<digest128> sa = model_digest(fa.model(), &ea, shapes);
        const result<digest128> sb = model_digest(fb.model(), &eb, shapes);
        tolerated_only = sa && sb && *sa == *sb;
    }
    // What the sections do not itemize (a function's attribute defaults, a
    // training binding, initializer order, ...) still changes the digest.
    if (!same && counted == 0 && !renamed_only && !tolerated_only)
        r.graph.push_back("the models differ in a part this report does not itemize (docs/diff.md)");
    // Bytes that differ with nothing to show are layout, unless something
    // was left out on purpose (--ignore, --weights=none).
    const bool anything_ignored = skip.doc_string || skip.producer || skip.metadata;
    if (same && r.layout.empty() && r.model.empty() && !anything_ignored && digest.values && !same_bytes(fa, fb))
        r.layout.push_back("the files differ in layout only (field order, padding, encodings)");
    const bool equivalent = same || renamed_only || tolerated_only;
    const char* verdict = renamed_only     ? "same computation, names differ"
                          : tolerated_only ? "same computation, weights within tolerance"
                          : !same          ? "differ"
                          : r.model.empty() && r.layout.empty() ? "identical"
                                                                : "same computation, layout differs";
    if (args.json) {
        print_json(args, *ha, *hb, verdict, equivalent, r);
    } else {
        const std::uint64_t n = args.max_changes;
        print_section("model", r.model, n);
        print_section("signature", r.signature, n);
        print_section("graph", r.graph, n);
        print_section("weights", r.weights, n);
        print_section("layout (not counted)", r.layout, n);
        print_section("names (not counted)", r.names, n);
        if (equivalent)
            std::puts(verdict);
        else
            std::printf("%zu signature, %zu graph, %zu weight changes\n", r.signature.size(),
                        r.graph.size() + r.model_counted, r.weights.size());
    }
    if (std::fflush(stdout) != 0) {
        print_error("diff", "cannot write to standard output");
        return exit_usage;
    }
    if (fail_on.signature || fail_on.graph || fail_on.weights) {
        const bool failed = (fail_on.signature && !r.signature.empty()) ||
                            (fail_on.graph && r.graph.size() + r.model_counted != 0) ||
                            (fail_on.weights && !r.weights.empty());
        return failed ? exit_findings : exit_ok;
    }
    return equivalent ? exit_ok : exit_findings;
}

// --git: git's seven external-diff arguments; a side that is /dev/null is a
// model added or removed.
int run_for_git(arguments& args) {
    // Nine when git found a rename: then the new path and a message follow.
    if (args.more.size() != 5 && args.more.size() != 7) {
        print_error("diff", "--git takes git's seven arguments: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX "
                            "NEW-MODE (or nine with a rename; " + std::to_string(args.more.size() + 2) + " given)");
        return exit_usage;
    }
    const std::string path = args.a;
    const std::string new_path = args.more.size() == 7 ? args.more[5] : args.a;
    args.a = args.b;
    args.b = args.more[2];
    args.git_a = "a/" + path;
    args.git_b = "b/" + new_path;
    std::printf("onnxview diff a/%s b/%s\n", path.c_str(), new_path.c_str());
    const std::string_view none = "/dev/null";
    if (args.a == none || args.b == none) {
        std::printf("model %s: %s\n", args.a == none ? "added" : "removed", path.c_str());
        return std::fflush(stdout) == 0 ? exit_ok : exit_usage;
    }
    std::fflush(stdout);
    const int code = compare(args);
    return code == exit_findings ? exit_ok : code;
}

int run(arguments& args) {
    if (args.git) return run_for_git(args);
    if (!args.more.empty()) {
        print_error("diff", "too many arguments (try onnxview diff --help)");
        return exit_usage;
    }
    return compare(args);
}

}  // namespace

const subcommand diff_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
