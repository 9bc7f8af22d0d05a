// check.cpp - the checker's driver: findings, paths, the wire format and
// the model's own fields (see onnxview/check.hpp, src/check/checker.hpp).
#include "checker.hpp"

#include <cassert>

#include "onnxview/field_path.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/verify.hpp"

namespace onnxview {
namespace check_detail {

void quote(text& out, std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    out += '\'';
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != 0x7F && c != '\'' && c != '\\') {
            out += ch;
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    out += '\'';
}

void checker::report(check_severity s, finding_code code, std::string_view msg, std::uint64_t offset) {
    if (stopped_) return;
    if (s == check_severity::warning && opt_.errors_only) return;
    if (result_.errors + result_.warnings >= max_findings_) {
        result_.truncated = true;
        stopped_ = true;
        return;
    }
    (s == check_severity::error ? result_.errors : result_.warnings)++;
    if (cb_ == nullptr) return;
    check_finding f;
    f.severity = s;
    f.code = code;
    f.path = path_.empty() ? std::string_view("model") : std::string_view(path_);
    f.message = msg;
    f.offset = offset;
    cb_(user_, f);
}

void checker::push_path(const schema::message_desc& message, std::uint32_t number, std::int64_t index,
                        std::string_view name, bool show_name) {
    const schema::field_desc* field = message.find(number);
    assert(field != nullptr);
    if (!path_.empty()) path_ += '.';
    path_ += field->name;
    if (index >= 0) {
        path_ += '[';
        path_ += num(index);
        path_ += ']';
    }
    if (show_name && !name.empty()) {
        path_ += ' ';
        quote(path_, name);
    }
}

checker::path_guard::path_guard(checker& c, const schema::message_desc& message, std::uint32_t number,
                                std::int64_t index, std::string_view name, bool show_name)
    : c_(c), len_(c.path_.size()) {
    c.push_path(message, number, index, name, show_name);
}

check_result checker::run() {
    if (const onnxview::error e = verify(data_, size_, schema::msg_ModelProto, opt_)) {
        char fp[512] = {};
        auto n = field_path_at(data_, size_, e.offset, schema::msg_ModelProto, fp, sizeof fp);
        if (n.ok() || n.err().code == errc::buffer_too_small) path_ = fp;
        text msg = str("the bytes do not parse as onnx.ModelProto: ");
        msg += errc_message(e.code);
        msg += " (";
        msg += errc_name(e.code);
        msg += ") at byte ";
        msg += num(e.offset);
        error(finding_code::wire_format, msg, e.offset);
        return result_;
    }
    const model_view m = parse_model(data_, size_, opt_);
    check_model_fields(m);
    return result_;
}

void checker::check_model_fields(const model_view& m) {
    ir_version_ = m.ir_version();
    if (!m.has_ir_version() || m.ir_version() == 0) {
        error(finding_code::missing_ir_version, "the model has no ir_version");
    } else if (m.ir_version() < 0) {
        error(finding_code::bad_ir_version, "ir_version " + num(m.ir_version()) + " is negative");
    } else if (m.ir_version() > newest_ir_version) {
        warning(finding_code::new_ir_version, "ir_version " + num(m.ir_version()) +
                                                  " is newer than this checker knows (" +
                                                  num(newest_ir_version) + ")");
    }
    if (m.metadata_props().size() > 1) {
        name_set keys(mem_);
        std::int64_t i = 0;
        for (const string_entry_view& e : m.metadata_props()) {
            if (!keys.insert(e.key()).second) {
                path_guard p(*this, schema::msg_ModelProto, model_view::field::metadata_props, i);
                error(finding_code::duplicate_metadata_key,
                      "metadata key " + quoted(e.key()) + " appears more than once", offset_of(e));
            }
            ++i;
        }
    }
    {
        std::int64_t i = 0;
        for (const opset_id_view& op : m.opset_import()) {
            if (!model_opsets_.emplace(domain_key(op.domain()), op.version()).second) {
                path_guard p(*this, schema::msg_ModelProto, model_view::field::opset_import, i);
                warning(finding_code::duplicate_opset, "domain " + quoted(op.domain()) + " is imported more than once",
                        offset_of(op));
            }
            ++i;
        }
    }
    if (ir_version_ >= 3) {
        if (m.opset_import().empty())
            error(finding_code::missing_opset_import, "a model with IR version >= 3 must have opset_import");
    } else if (m.has_ir_version()) {
        if (!m.opset_import().empty())
            error(finding_code::unexpected_opset_import, "a model with IR version < 3 cannot have opset_import");
        else
            model_opsets_.emplace(std::string_view(), 1);
    }
    if (!m.has_graph()) {
        error(finding_code::missing_graph, "the model has no graph");
    } else {
        path_guard p(*this, schema::msg_ModelProto, model_view::field::graph);
        model_scope main;
        main.graph = m.graph();
        check_scope(main, model_opsets_);
    }
    if (!stopped_) check_functions(m);
}

}  // namespace check_detail


check_result check_model(const void* data, std::size_t size, const options& opts, check_callback callback,
                         void* user) {
    check_detail::checker c(static_cast<const char*>(data), size, opts, callback, user);
    return c.run();
}

}  // namespace onnxview
