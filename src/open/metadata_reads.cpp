// The read plan of a metadata walk (see onnxview/metadata_reads.hpp).
#include "onnxview/metadata_reads.hpp"

#include <algorithm>
#include <cstdint>

#include "onnxview/wire.hpp"

namespace onnxview {

namespace {

// Pages are at least this big on every host onnxview runs on; the plan only
// uses it to decide which bytes a touched tag has already brought in.
constexpr std::uint64_t page_bytes = 4096;
// A tag and a length: what the scan reads at the start of a field.
constexpr std::uint64_t field_head_bytes = 5 + 10;

// Reads the field at p (advanced past it): its number, wire type and value
// (for length-delimited fields the payload and its length). False for bytes
// that are not a field of these wire types (groups are not in ONNX).
bool read_field(const char*& p, const char* end, std::uint32_t& number, wire::wire_type& type, const char*& payload,
                std::uint64_t& length) noexcept {
    if (wire::decode_tag(p, end, number, type) != errc::ok) return false;
    switch (type) {
        case wire::wire_type::varint: return wire::decode_value<wire::wire_type::varint>(p, end, payload, length);
        case wire::wire_type::fixed64: return wire::decode_value<wire::wire_type::fixed64>(p, end, payload, length);
        case wire::wire_type::fixed32: return wire::decode_value<wire::wire_type::fixed32>(p, end, payload, length);
        case wire::wire_type::length_delimited:
            return wire::decode_value<wire::wire_type::length_delimited>(p, end, payload, length);
        default: return false;
    }
}

class metadata_scan {
public:
    // With cover_heads the recipient also hears of the page of each field
    // head after a payload (a plan leaves it to the page fault), and the scan
    // ends as soon as *stop is set.
    metadata_scan(std::string_view bytes, const advice_recipient& to, const metadata_read_limits& limits,
                  bool cover_heads = false, const bool* stop = nullptr) noexcept
        : base_(bytes.data()), to_(to), limits_(limits), window_(limits.first_window), cover_heads_(cover_heads),
          stop_(stop) {}

    // Scans the fields of the message [p, end) of type `desc` (null: unknown
    // type, nothing is descended into). False when the bytes stop being
    // readable: the scan ends there.
    bool scan(const char* p, const char* end, const schema::message_desc* desc, unsigned depth) noexcept {
        while (p != end) {
            about_to_read(p, end);
            if (stop_ != nullptr && *stop_) return false;
            std::uint32_t number = 0;
            wire::wire_type type{};
            const char* payload = nullptr;
            std::uint64_t length = 0;
            if (!read_field(p, end, number, type, payload, length)) return false;
            if (type != wire::wire_type::length_delimited || length < limits_.payload_from) {
                in_metadata_ = true;
                continue;
            }
            const schema::field_desc* f = desc ? desc->find(number) : nullptr;
            if (f && f->type == schema::type::message && depth < limits_.max_scan_depth) {
                // Its fields are read like the parent's: the metadata run goes on.
                if (!scan(payload, p, f->message, depth + 1)) return false;
            } else {
                in_metadata_ = false;  // a payload, skipped: the next run starts small
                window_ = limits_.first_window;
            }
        }
        return true;
    }

private:
    // The scan is about to read a field's head at p. Inside a metadata run
    // the bytes from there on are prefetched, a window at a time; after a
    // payload only p's own page is faulted in (the mapping is random access),
    // since the next bytes may be the next payload.
    void about_to_read(const char* p, const char* end) noexcept {
        const auto at = static_cast<std::uint64_t>(p - base_);
        const auto limit = static_cast<std::uint64_t>(end - base_);
        const std::uint64_t head_end = std::min(limit, at + field_head_bytes);
        // Once a run has needed a few windows it is likely to go on: the next
        // window is asked for half a window early, so the disk works while the
        // scan reads. Not earlier: a short run (a bias tensor between two
        // weights) would read that lead from the next payload.
        const std::uint64_t lead = window_ >= 8 * limits_.first_window ? window_ / 2 : 0;
        if (head_end + lead <= ahead_ || (head_end <= ahead_ && !in_metadata_)) return;
        if (!in_metadata_) {
            const std::uint64_t page_end = std::min(limit, (head_end + page_bytes - 1) / page_bytes * page_bytes);
            const std::uint64_t from = std::max(ahead_, at / page_bytes * page_bytes);
            if (cover_heads_ && page_end > from) to_.advise(to_.user_data, access_hint::willneed, from, page_end - from);
            ahead_ = page_end;
            return;
        }
        // From ahead_, not p: the bytes between are the body of the field
        // before, metadata too.
        const std::uint64_t from = ahead_;
        if (from >= limit) return;
        const std::uint64_t length = std::min(window_, limit - from);
        to_.advise(to_.user_data, access_hint::willneed, from, length);
        ahead_ = from + length;
        window_ = std::min(window_ * 2, limits_.max_window);
    }

    const char* base_;
    advice_recipient to_;
    metadata_read_limits limits_;
    std::uint64_t ahead_ = 0;  // bytes below this are in memory or on their way
    std::uint64_t window_;
    bool in_metadata_ = false;  // the last field read was metadata
    bool cover_heads_;
    const bool* stop_;
};

// Linux reads at most the device's read-ahead size (read_ahead_kb, 128 KiB by
// default; 8 MiB on the benchmark's virtio disk) per willneed call, so longer
// ranges are given in pieces of that default size.
constexpr std::uint64_t willneed_piece = std::uint64_t(128) << 10;

void advise_file(void* user_data, access_hint hint, std::uint64_t offset, std::uint64_t length) {
    const auto& file = *static_cast<const mapped_file*>(user_data);
    if (hint != access_hint::willneed || length == 0) {
        (void)file.advise(hint, offset, length);  // a refused hint changes nothing
        return;
    }
    for (std::uint64_t done = 0; done < length; done += willneed_piece)
        (void)file.advise(hint, offset + done, std::min(willneed_piece, length - done));
}

// copy_metadata_pages: each range the scan will read becomes private
// copies, until the budget or the system says no.
struct copy_budget {
    const mapped_file* file;
    page_copies* copies;
    std::uint64_t bytes_left;
    bool cold;  // pages not in memory: each range is read ahead first
    std::uint64_t copied = 0;
    bool stop = false;
};

void copy_range(void* user_data, access_hint hint, std::uint64_t offset, std::uint64_t length) {
    auto& c = *static_cast<copy_budget*>(user_data);
    if (c.stop || hint != access_hint::willneed || length == 0) return;
    if (length > c.bytes_left) {
        c.stop = true;  // the rest is read through the mapping, as without copies
        return;
    }
    // Started as one read (the copy's page faults would read a page each
    // under random access), then waited for by the copy.
    if (c.cold) advise_file(const_cast<mapped_file*>(c.file), access_hint::willneed, offset, length);
    if (!c.copies->copy(offset, length).ok()) {
        c.stop = true;
        return;
    }
    c.bytes_left -= length;
    c.copied += length;
}

// fetch_metadata: ensures what a metadata walk reads, field by field.
class metadata_fetch {
public:
    metadata_fetch(const mapped_file& file, const metadata_read_limits& limits) noexcept
        : file_(file), limits_(limits) {}

    // Fetches the fields of the message [p, end) of type `desc` (null:
    // unknown). keep_payloads: inside a sparse tensor, whose indices the
    // checker reads. Stops at the first error of the file's supplier.
    error scan(const char* p, const char* end, const schema::message_desc* desc, unsigned depth,
               bool keep_payloads) noexcept {
        while (p != end) {
            const char* head = p;
            if (const error e = need(p, std::min<std::uint64_t>(field_head_bytes, static_cast<std::uint64_t>(end - p))))
                return e;
            std::uint32_t number = 0;
            wire::wire_type type{};
            const char* payload = nullptr;
            std::uint64_t length = 0;
            if (!read_field(p, end, number, type, payload, length)) {
                // A group (valid protobuf, not ONNX): the views skip it and read
                // on, so the rest is fetched. Malformed bytes: the views stop at
                // this head, already fetched; a file that is no model (a 2 GB
                // safetensors file at the URL) costs no more than that.
                const char* at = head;
                return wire::decode_tag(at, end, number, type) == errc::ok && type == wire::wire_type::start_group
                           ? need(head, static_cast<std::uint64_t>(end - head))
                           : error();
            }
            if (type != wire::wire_type::length_delimited) continue;
            const schema::field_desc* f = desc ? desc->find(number) : nullptr;
            if (length >= limits_.payload_from && f != nullptr) {
                if (f->type == schema::type::message && depth < limits_.max_scan_depth) {
                    const bool sparse = keep_payloads || desc == &schema::msg_SparseTensorProto;
                    if (const error e = scan(payload, p, f->message, depth + 1, sparse)) return e;
                    continue;
                }
                // A tensor's numbers: read by tensor_data, which model_file::tensor() fetches first.
                const bool tensor_payload = desc == &schema::msg_TensorProto &&
                                            (f->type == schema::type::bytes || f->packed_width() != 0);
                if (tensor_payload && !keep_payloads) continue;
            }
            if (const error e = need(payload, length)) return e;
        }
        return error();
    }

private:
    error need(const char* p, std::uint64_t length) const noexcept {
        if (length == 0) return error();
        return file_.ensure(static_cast<std::uint64_t>(p - file_.data()), length);
    }

    const mapped_file& file_;
    metadata_read_limits limits_;
};

}  // namespace

error fetch_metadata(const mapped_file& file, const metadata_read_limits& limits) noexcept {
    if (file.empty() || !file.on_demand()) return error();
    if (file.size() < limits.whole_below) return file.ensure(0, 0);
    metadata_fetch fetch(file, limits);
    return fetch.scan(file.data(), file.data() + file.size(), &schema::msg_ModelProto, 0, false);
}

void plan_metadata_reads(std::string_view bytes, const schema::message_desc& root, const advice_recipient& to,
                         const metadata_read_limits& limits) noexcept {
    if (bytes.empty() || to.advise == nullptr) return;
    if (bytes.size() < limits.whole_below) {
        to.advise(to.user_data, access_hint::willneed, 0, 0);
        return;
    }
    to.advise(to.user_data, access_hint::random, 0, 0);
    metadata_scan scan(bytes, to, limits);
    (void)scan.scan(bytes.data(), bytes.data() + bytes.size(), &root, 0);
}

bool advise_metadata_reads(const mapped_file& file, const metadata_read_limits& limits) noexcept {
    if (file.kind() != mapped_file::storage::mapped) return false;
    if (limits.resident_samples != 0 && file.resident(limits.resident_samples)) return false;
    advice_recipient to;
    to.advise = advise_file;
    to.user_data = const_cast<mapped_file*>(&file);
    plan_metadata_reads(file.bytes(), schema::msg_ModelProto, to, limits);
    return file.size() >= limits.whole_below;
}

metadata_copy copy_metadata_pages(const mapped_file& file, const metadata_read_limits& limits) noexcept {
    metadata_copy out;
    if (file.kind() != mapped_file::storage::mapped || file.size() < limits.copy_from) return out;
    const bool cold = limits.resident_samples == 0 || !file.resident(limits.resident_samples);
    // As in the plan: a cold page fault reads its page, not the weights around it.
    if (cold) out.random = file.advise(access_hint::random).ok();
    page_copies copies(file);
    if (!copies.err().ok()) {  // the plan, then (it advises random access again when cold)
        out.random = advise_metadata_reads(file, limits);
        return out;
    }
    copy_budget c{&file, &copies, limits.max_copy_bytes, cold};
    advice_recipient to;
    to.advise = copy_range;
    to.user_data = &c;
    metadata_scan scan(file.bytes(), to, limits, true, &c.stop);
    (void)scan.scan(file.data(), file.data() + file.size(), &schema::msg_ModelProto, 0);
    out.bytes = c.copied;
    return out;
}

}  // namespace onnxview
