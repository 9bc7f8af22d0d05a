// tools/stats.cpp - `onnxview stats`: the statistics of every weight.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/stats.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* model = nullptr;
    std::vector<const char*> names;
    bool json = false;
    std::uint64_t histogram = 0;
};

command_line make_command_line(arguments& a) {
    command_line cl{"stats",
                    "count, min, max, mean, std, zeros, NaN, Inf and\n"
                    "subnormals of every weight",
                    "Reads every tensor the model stores (initializers, sparse initializers,\n"
                    "Constant nodes and tensor attributes, in every graph, subgraph and\n"
                    "function; inline or external) once, and prints per tensor: the count of\n"
                    "values, min, max, mean and standard deviation of the finite ones, and\n"
                    "how many are zero, NaN, +Inf, -Inf and subnormal. With NAME arguments,\n"
                    "only the tensors of those names. docs/stats.md describes every field.\n",
                    "exit status: 0 success, 1 the model does not parse or a tensor cannot be\n"
                    "read, 2 usage or I/O error (a NAME no tensor has)\n",
                    {flag("json", 0, a.json, "one JSON object (docs/stats.md)"),
                     number("histogram", 0, "BINS", a.histogram, 1, 100000,
                            "also count the finite values of each tensor in BINS equal bins\n"
                            "between its min and max (reads each payload a second time)")},
                    {{"MODEL", &a.model}}};
    cl.more_operands = &a.names;
    cl.more_operands_synopsis = "[NAME...]";
    return cl;
}

// "1.23457", "-3", "nan": a statistic in a table cell.
std::string cell(double v) {
    if (!std::isfinite(v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string cell_min_max(const value_stats& v, bool min) {
    if (v.finite == 0) return "-";
    if (v.integral) return v.unsigned64 ? std::to_string(min ? v.min_u : v.max_u) : std::to_string(min ? v.min_i : v.max_i);
    return cell(min ? v.min : v.max);
}

std::string dims_cell(const std::vector<std::int64_t>& dims) {
    std::string s = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

struct table {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> histograms;  // per row, "" when none
};

struct report {
    bool json = false;
    json_writer w;
    table tb;
    std::vector<std::string> names_seen;
};

void add_row(table& tb, const tensor_stats& t) {
    const char* type = data_type_name(t.data_type);
    std::string name = t.name.empty() ? t.path : t.name;
    std::vector<std::string> row{name, type ? type : "?", dims_cell(t.dims)};
    std::string hist;
    if (t.failure) {
        row.push_back(std::string("error: ") + errc_message(t.failure.code));
    } else if (t.values.values == 0 && t.values.elements != 0) {
        row.push_back(std::to_string(t.values.elements));
        row.push_back("(strings)");
    } else {
        const value_stats& v = t.values;
        row.insert(row.end(), {std::to_string(v.values), cell_min_max(v, true), cell_min_max(v, false), cell(v.mean),
                               cell(v.std), std::to_string(v.zeros), std::to_string(v.nan),
                               std::to_string(v.pos_inf + v.neg_inf), std::to_string(v.subnormal)});
        if (!v.histogram.empty()) {
            hist = "  histogram [" + cell(v.min) + ", " + cell(v.max) + "]:";
            for (std::uint64_t c : v.histogram) hist += " " + std::to_string(c);
        }
    }
    tb.rows.push_back(std::move(row));
    tb.histograms.push_back(std::move(hist));
}

void on_tensor(void* user, const tensor_stats& t) {
    report& r = *static_cast<report*>(user);
    r.names_seen.push_back(t.name);
    if (r.json) write_tensor_stats_json(r.w, t);
    else add_row(r.tb, t);
}

std::string format_table(const table& tb) {
    static const char* const header[] = {"TENSOR", "TYPE", "DIMS", "VALUES", "MIN", "MAX", "MEAN",
                                         "STD",    "ZEROS", "NAN", "INF", "SUBNORMAL"};
    constexpr std::size_t columns = sizeof header / sizeof header[0];
    std::size_t width[columns];
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::string_view(header[c]).size();
    for (const auto& r : tb.rows)
        for (std::size_t c = 0; c < r.size() && c < columns; ++c)
            if (c + 1 < r.size() || r.size() == columns) width[c] = std::max(width[c], r[c].size());
    std::string out;
    const auto line = [&](const std::vector<std::string>& r) {
        for (std::size_t c = 0; c < r.size(); ++c) {
            const bool last = c + 1 == r.size();
            const bool numeric = c >= 3;
            if (last) {
                if (numeric && r.size() == columns) out.append(width[c] - r[c].size(), ' ');
                out += r[c];
                break;
            }
            if (numeric) out.append(width[c] - r[c].size(), ' ');
            out += r[c];
            if (!numeric) out.append(width[c] - r[c].size(), ' ');
            out += "  ";
        }
        out += '\n';
    };
    line(std::vector<std::string>(header, header + columns));
    for (std::size_t i = 0; i < tb.rows.size(); ++i) {
        line(tb.rows[i]);
        if (!tb.histograms[i].empty()) out += tb.histograms[i] + '\n';
    }
    return out;
}

int run(arguments& a) {
    int code = exit_ok;
    model_file mf;
    if (!open_model("stats", a.model, stats_file_options(), mf, code)) return code;
    model_stats_options so;
    for (const char* n : a.names) so.names.emplace_back(n);
    so.histogram_bins = static_cast<std::uint32_t>(a.histogram);
    report rep;
    rep.json = a.json;
    if (a.json) {
        rep.w.begin_object();
        rep.w.field("file", shown_path(a.model));
        rep.w.key("tensors");
        rep.w.begin_array();
    }
    const result<model_stats_totals> r = model_stats(mf, so, on_tensor, &rep);
    if (!r) {
        print_error("stats", describe(r.err(), mf.bytes().data(), mf.bytes().size()));
        return exit_findings;
    }
    for (const char* n : a.names)
        if (std::find(rep.names_seen.begin(), rep.names_seen.end(), n) == rep.names_seen.end()) {
            print_error("stats", "no tensor named " + quoted(n) + " in '" + shown_path(a.model) + "'");
            return exit_usage;
        }
    const model_stats_totals& totals = *r;
    std::string text;
    if (a.json) {
        rep.w.end_array();
        rep.w.key("totals");
        write_stats_totals_json(rep.w, totals);
        rep.w.end_object();
        text = rep.w.str();
    } else {
        text = format_table(rep.tb);
        text += std::to_string(totals.tensors) + (totals.tensors == 1 ? " tensor, " : " tensors, ") +
                std::to_string(totals.values) + " values: " + std::to_string(totals.zeros) + " zeros, " +
                std::to_string(totals.nan) + " NaN, " + std::to_string(totals.pos_inf) + " +Inf, " +
                std::to_string(totals.neg_inf) + " -Inf, " + std::to_string(totals.subnormal) + " subnormal";
        if (totals.unreadable != 0) text += ", " + std::to_string(totals.unreadable) + " unreadable";
        text += '\n';
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (totals.unreadable != 0) {
        print_error("stats", std::to_string(totals.unreadable) + (totals.unreadable == 1 ? " tensor" : " tensors") +
                                 " of '" + shown_path(a.model) + "' could not be read");
        return exit_findings;
    }
    return exit_ok;
}

}  // namespace

const subcommand stats_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
