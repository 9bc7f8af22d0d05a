// src/compare/model_diff.cpp - diff_models(): the digests, the sections in
// turn (diff_model.cpp, diff_graph.cpp, diff_weights.cpp) and the verdict.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define ONNXVIEW_COMPARE_THREADS 1
#endif

#include "diff_internal.hpp"
#include "onnxview/compare/model_diff.hpp"
#include "onnxview/file.hpp"

namespace onnxview {
namespace {

using namespace diff_detail;

void remember_digest(void* user, const tensor_view& t, const digest128& d) {
    static_cast<tensor_digests*>(user)->emplace(t.wire_message().begin(), d);
}

// `base` reading every payload once (reading_payloads_once), and, given
// `seen`, each tensor's digest kept there.
digest_options releasing(const model_file& mf, digest_options base, tensor_digests* seen = nullptr) {
    base = reading_payloads_once(mf, base);
    if (seen != nullptr) {
        base.tensor_hashed = remember_digest;
        base.tensor_user = seen;
    }
    return base;
}

// Whether two files that keep their descriptors hold the same bytes,
// copied with pread a piece at a time (nothing mapped). A file that cannot
// be read to its end (truncated meanwhile) compares unequal.
bool same_bytes_read(const mapped_file& a, const mapped_file& b) {
    constexpr std::size_t piece = std::size_t(256) << 10;
    const std::unique_ptr<char[]> buffer(new (std::nothrow) char[2 * piece]);
    if (!buffer) return false;
    char* const in_a = buffer.get();
    char* const in_b = buffer.get() + piece;
    for (std::size_t done = 0; done < a.size(); done += piece) {
        const std::size_t n = std::min(piece, a.size() - done);
        if (a.read_at(done, in_a, n) || b.read_at(done, in_b, n) || std::memcmp(in_a, in_b, n) != 0) return false;
    }
    return true;
}

// Whether the two files hold the same bytes: read with pread when both keep
// their descriptors, else compared in pieces of the mappings whose pages are
// given back, so that comparing two large files keeps a small resident set.
bool same_bytes(const model_file& fa, const model_file& fb) {
    const std::string_view a = fa.bytes(), b = fb.bytes();
    if (a.size() != b.size()) return false;
    if (fa.file().keeps_descriptor() && fb.file().keeps_descriptor()) return same_bytes_read(fa.file(), fb.file());
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

// One model's digest, to be made on either thread.
struct digest_job {
    const model_file* file;
    external_payload_source ext;
    digest_options opts;
    result<digest128> out{errc::invalid_argument};
    void run() { out = model_digest(file->model(), &ext, opts); }
};

#ifdef ONNXVIEW_COMPARE_THREADS
void* run_digest_job(void* job) {
    static_cast<digest_job*>(job)->run();
    return nullptr;
}
#endif

// Both digests: with `parallel`, a's on a second thread while this one makes
// b's, so that the two files are read at once (one reader spends about as
// long in page faults as in hashing: two cores read two files in the time
// of one). Otherwise, or where threads are not POSIX or none can be made,
// one after the other, b's only when a's was made.
void digest_both(digest_job& a, digest_job& b, bool parallel) {
#ifdef ONNXVIEW_COMPARE_THREADS
    pthread_t thread;
    if (parallel && pthread_create(&thread, nullptr, run_digest_job, &a) == 0) {
        b.run();
        pthread_join(thread, nullptr);
        return;
    }
#else
    (void)parallel;
#endif
    a.run();
    if (a.out) b.run();
    else b.out = a.out;
}

// An external payload's file is not there (not: the payload is invalid).
bool missing(const result<digest128>& h) {
    return !h && (h.err().sys_errno != 0 || h.err().code == errc::io_resolve_failed);
}

// The names section: the first node and value renamed, with the counts in
// model_diff::matching.
void names_section(const value_names& n, change_list& out) {
    const auto first = [&out](change_subject what, const std::string& before, const std::string& after) {
        out.push_back(make_change(diff_section::names, change_kind::renamed, what, "", false));
        out.back().before = before;
        out.back().after = after;
    };
    if (n.nodes_renamed != 0) first(change_subject::nodes, n.first_node_a, n.first_node_b);
    if (n.values_renamed != 0) first(change_subject::values, n.first_value_a, n.first_value_b);
}

// Whether a and b have the same digest made with `opts` (both readable).
bool same_digest(model_file& a, model_file& b, const digest_options& opts) {
    const external_payload_source ea = a.external(), eb = b.external();
    const result<digest128> da = model_digest(a.model(), &ea, opts);
    const result<digest128> db = model_digest(b.model(), &eb, opts);
    return da && db && *da == *db;
}

}  // namespace

error diff_models(model_file& fa, model_file& fb, const diff_options& options, model_diff& out) {
    out = model_diff();
    const node_matching mode = options.ignore.names ? node_matching::automatic : options.matching;
    digest_options digest;
    digest.values = options.weights != weights_comparison::none;
    const external_payload_source ea = fa.external(), eb = fb.external();
    tensor_digests seen_a, seen_b;
    digest_job ja{&fa, ea, releasing(fa, digest, &seen_a)}, jb{&fb, eb, releasing(fb, digest, &seen_b)};
    // One model_file on both sides: its external-data resolver is not for two threads.
    const bool parallel = options.parallel && &fa != &fb;
    digest_both(ja, jb, parallel);
    const char* unread = nullptr;  // the side whose external data is missing
    if (options.weights_by_shape_when_missing && digest.values && (missing(ja.out) || missing(jb.out))) {
        unread = missing(ja.out) ? "a" : "b";
        digest.values = false;
        seen_a.clear();
        seen_b.clear();
        ja.opts = releasing(fa, digest, &seen_a);
        jb.opts = releasing(fb, digest, &seen_b);
        digest_both(ja, jb, parallel);
    }
    const result<digest128> ha = ja.out, hb = jb.out;
    if (!ha) return ha.err();
    out.failed_in_b = !hb;
    if (!hb) return hb.err();
    out.digest_a = *ha;
    out.digest_b = *hb;
    out.values_compared = digest.values;
    const bool same = *ha == *hb;

    change_list& changes = out.changes;
    value_names names;
    diff_model_fields(fa.model(), fb.model(), options.ignore, changes);
    if (unread != nullptr) changes.push_back(make_change(diff_section::model, change_kind::values_unread, change_subject::none, unread, false));
    // The graph first: it finds what a's values are called in b. Equal
    // digests leave it nothing to find (every name, node and attribute it
    // compares is in them, and fuzz_diff_pair holds it to that). Its
    // changes, listed after the signature's, wait apart: appending them once
    // costs a move each, where sorting all changes into sections cost a
    // quarter second for 200000 of them.
    change_list graph;
    if (!same)
        if (error e = diff_graphs(fa, fb, digest, mode, names, graph, &seen_a, &seen_b)) return e;
    diff_value_infos(fa.model().graph().input(), fb.model().graph().input(), change_subject::input, names, changes);
    diff_value_infos(fa.model().graph().output(), fb.model().graph().output(), change_subject::output, names, changes);
    changes.insert(changes.end(), std::make_move_iterator(graph.begin()), std::make_move_iterator(graph.end()));
    graph = change_list();
    out.matching = {names.nodes, names.nodes_matched, names.nodes_renamed, names.values_renamed};
    const bool renamed = names.nodes_renamed + names.values_renamed != 0;
    // Equal digests mean equal weights, by name and scope: their values
    // need no second reading.
    const std::size_t weights_start = changes.size();
    std::size_t tolerated = 0;
    if (error e = diff_weights(fa, fb, digest.values && !same, options, names, seen_a, seen_b, changes, tolerated))
        return e;
    const std::size_t counted = static_cast<std::size_t>(
        std::count_if(changes.begin(), changes.end(), [](const model_change& c) { return c.counted; }));
    // Renamed nodes and inner values change the digest (names are part of
    // it): with automatic matching that is the same computation when nothing
    // else is listed and the digests without names (and values, which the
    // weights section has compared) agree, so nothing unlisted hides there.
    bool renamed_only = false;
    if (!same && counted == 0 && renamed) {
        digest_options nameless = digest;
        nameless.names = false;
        nameless.values = false;
        renamed_only = same_digest(fa, fb, nameless);
    }
    // Weights within allclose: the same computation when the digests without
    // values agree, so nothing else hides behind them.
    bool tolerated_only = false;
    if (!same && counted == 0 && !renamed && tolerated != 0) {
        digest_options shapes = digest;
        shapes.values = false;
        tolerated_only = same_digest(fa, fb, shapes);
    }
    // What the sections do not itemize (a function's attribute defaults, a
    // training binding, initializer order, ...) still changes the digest.
    if (!same && counted == 0 && !renamed_only && !tolerated_only)
        changes.insert(changes.begin() + static_cast<std::ptrdiff_t>(weights_start),
                       make_change(diff_section::graph, change_kind::unitemized, change_subject::none, "", true));
    const auto in = [&changes](diff_section s) {
        return std::any_of(changes.begin(), changes.end(), [s](const model_change& c) { return c.section == s; });
    };
    // Bytes that differ with nothing to show are layout, unless something
    // was left out on purpose (ignored fields, weights not compared).
    const bool anything_ignored = options.ignore.doc_string || options.ignore.producer || options.ignore.metadata;
    if (same && !in(diff_section::layout) && !in(diff_section::model) && !anything_ignored && digest.values &&
        !same_bytes(fa, fb))
        changes.push_back(make_change(diff_section::layout, change_kind::encoding, change_subject::none, "", false));
    if (!options.ignore.names) names_section(names, changes);
    // Sections in the documented order, each in the order it was found: the
    // weights section lists layout changes as it goes.
    std::stable_sort(changes.begin() + static_cast<std::ptrdiff_t>(weights_start), changes.end(),
                     [](const model_change& x, const model_change& y) { return x.section < y.section; });
    for (const model_change& c : changes) {
        if (!c.counted) continue;
        if (c.section == diff_section::signature) ++out.counts.signature;
        else if (c.section == diff_section::weights) ++out.counts.weights;
        else ++out.counts.graph;  // the graph's, and the model section's ir_version and opsets
    }
    out.verdict = renamed_only     ? diff_verdict::same_names_differ
                  : tolerated_only ? diff_verdict::same_within_tolerance
                  : !same          ? diff_verdict::differ
                  : !in(diff_section::model) && !in(diff_section::layout) ? diff_verdict::identical
                                                                           : diff_verdict::same_layout_differs;
    return error();
}

const char* diff_section_name(diff_section s) noexcept {
    switch (s) {
        case diff_section::model: return "model";
        case diff_section::signature: return "signature";
        case diff_section::graph: return "graph";
        case diff_section::weights: return "weights";
        case diff_section::layout: return "layout";
        case diff_section::names: return "names";
    }
    return "?";
}

const char* change_kind_name(change_kind k) noexcept {
    switch (k) {
        case change_kind::added: return "added";
        case change_kind::removed: return "removed";
        case change_kind::renamed: return "renamed";
        case change_kind::changed: return "changed";
        case change_kind::op_type: return "op_type";
        case change_kind::domain: return "domain";
        case change_kind::inputs: return "inputs";
        case change_kind::outputs: return "outputs";
        case change_kind::order: return "order";
        case change_kind::element_type: return "element_type";
        case change_kind::shape: return "shape";
        case change_kind::type: return "type";
        case change_kind::data_type: return "data_type";
        case change_kind::values: return "values";
        case change_kind::storage: return "storage";
        case change_kind::encoding: return "encoding";
        case change_kind::unitemized: return "unitemized";
        case change_kind::values_unread: return "values_unread";
    }
    return "?";
}

const char* change_subject_name(change_subject s) noexcept {
    switch (s) {
        case change_subject::none: return "";
        case change_subject::ir_version: return "ir_version";
        case change_subject::opset: return "opset";
        case change_subject::producer: return "producer";
        case change_subject::model_version: return "model_version";
        case change_subject::metadata: return "metadata";
        case change_subject::doc_string: return "doc_string";
        case change_subject::input: return "input";
        case change_subject::output: return "output";
        case change_subject::node: return "node";
        case change_subject::scope: return "scope";
        case change_subject::initializer: return "initializer";
        case change_subject::sparse_initializer: return "sparse_initializer";
        case change_subject::constant: return "constant";
        case change_subject::nodes: return "nodes";
        case change_subject::values: return "values";
    }
    return "?";
}

const char* diff_verdict_text(diff_verdict v) noexcept {
    switch (v) {
        case diff_verdict::identical: return "identical";
        case diff_verdict::same_layout_differs: return "same computation, layout differs";
        case diff_verdict::same_names_differ: return "same computation, names differ";
        case diff_verdict::same_within_tolerance: return "same computation, weights within tolerance";
        case diff_verdict::differ: return "differ";
    }
    return "?";
}

error pair_value_names(model_file& a, model_file& b, std::vector<std::pair<std::string, std::string>>& out) {
    out.clear();
    digest_options digest;
    digest.values = false;
    value_names names;
    change_list unused;
    if (error e = diff_graphs(a, b, digest, node_matching::automatic, names, unused)) return e;
    for (const auto& [key, name] : names.renamed) {
        // Keys are namespace_key("", name) for the graphs; functions apart.
        if (key.empty() || key[0] != '\n') continue;
        if (std::string_view(key).substr(1) != name) out.emplace_back(key.substr(1), name);
    }
    std::sort(out.begin(), out.end());
    return error();
}

}  // namespace onnxview
