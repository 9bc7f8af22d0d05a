// External data resolution: the entries of one tensor to a byte range of a
// file opened once. The rules a location must follow are location_policy's;
// opening it beneath the base directory is the platform's (open_beneath);
// this file parses the entries, keeps the table of open files and checks
// ranges, sizes, limits and checksums.
#include "onnxview/external_data.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "file_internal.hpp"
#include "location_policy.hpp"
#include "onnxview/decimal.hpp"
#include "sha1.hpp"

namespace onnxview {

namespace {

constexpr std::uint32_t default_max_files = 4096;
constexpr std::uint64_t default_copy_below = 64 * 1024;

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The `checksum` encoding is not specified by ONNX; 40 hex digits (either
// case) is the only form accepted.
bool parse_sha1_hex(std::string_view s, std::uint8_t out[detail::sha1::digest_size]) noexcept {
    if (s.size() != 2 * detail::sha1::digest_size) return false;
    for (std::size_t i = 0; i < detail::sha1::digest_size; ++i) {
        const int hi = hex_value(s[2 * i]);
        const int lo = hex_value(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    return true;
}

// An offset or length entry: its finer errors name which of the two it was.
result<std::uint64_t> parse_range_number(std::string_view text, errc not_decimal) noexcept {
    const result<std::uint64_t> n = parse_decimal(text);
    if (n.err().code == errc::not_decimal) return not_decimal;
    if (n.err().code == errc::number_too_large) return errc::external_number_too_large;
    return n;
}

}  // namespace

const char* describe_external_error(error e, std::string_view tensor, std::string_view location,
                                    char* out, std::size_t out_size) noexcept {
    if (out_size == 0) return out;
    const int t = static_cast<int>(tensor.size() < 200 ? tensor.size() : 200);
    const int l = static_cast<int>(location.size() < 200 ? location.size() : 200);
    char system[256] = "";
    if (e.sys_errno != 0) detail::system_error_text(e.sys_errno, system, sizeof system);
    std::snprintf(out, out_size, "tensor '%.*s': location '%.*s': %s%s%s%s", t, tensor.data(), l,
                  location.data(), errc_message(e.code), system[0] != '\0' ? " (" : "", system,
                  system[0] != '\0' ? ")" : "");
    return out;
}

struct external_data_resolver::slot {
    char* location = nullptr;  // normalized, NUL-terminated, from the resolver's heap
    std::size_t location_size = 0;
    mapped_file file;          // storage::none for an empty file
    bool digest_done = false;
    std::uint8_t digest[detail::sha1::digest_size] = {};
};

// --- construction ---------------------------------------------------------

external_data_resolver::external_data_resolver(external_data_resolver&& other) noexcept
    : options_(other.options_),
      callbacks_(other.callbacks_),
      use_callbacks_(other.use_callbacks_),
      base_(other.base_),
      slots_(other.slots_),
      count_(other.count_),
      capacity_(other.capacity_),
      total_bytes_(other.total_bytes_) {
    other.base_ = nullptr;
    other.slots_ = nullptr;
    other.count_ = other.capacity_ = 0;
    other.total_bytes_ = 0;
}

external_data_resolver& external_data_resolver::operator=(external_data_resolver&& other) noexcept {
    if (this != &other) {
        clear();
        options_ = other.options_;
        callbacks_ = other.callbacks_;
        use_callbacks_ = other.use_callbacks_;
        base_ = other.base_;
        slots_ = other.slots_;
        count_ = other.count_;
        capacity_ = other.capacity_;
        total_bytes_ = other.total_bytes_;
        other.base_ = nullptr;
        other.slots_ = nullptr;
        other.count_ = other.capacity_ = 0;
        other.total_bytes_ = 0;
    }
    return *this;
}

external_data_resolver::~external_data_resolver() { clear(); }

void external_data_resolver::clear() noexcept {
    const detail::heap h(options_.memory);
    for (std::size_t i = 0; i < count_; ++i) {
        slot* s = slots_[i];
        h.free_string(s->location, s->location_size);
        s->~slot();
        h.deallocate(s, sizeof(slot), alignof(slot));
    }
    h.deallocate(slots_, capacity_ * sizeof(slot*), alignof(slot*));
    if (base_ != nullptr) h.free_string(base_, std::strlen(base_));
    slots_ = nullptr;
    base_ = nullptr;
    count_ = capacity_ = 0;
    total_bytes_ = 0;
}

result<external_data_resolver> external_data_resolver::create(const options& opts) noexcept {
    external_data_resolver r;
    r.options_.max_external_files = opts.max_external_files ? opts.max_external_files : default_max_files;
    r.options_.max_external_bytes =
        opts.max_external_bytes ? opts.max_external_bytes : std::numeric_limits<std::uint64_t>::max();
    r.options_.external_copy_below = opts.external_copy_below ? opts.external_copy_below : default_copy_below;
    r.options_.allow_hard_links = opts.allow_hard_links;
    r.options_.verify_checksum = opts.verify_checksum;
    r.options_.external_hint = opts.external_hint;
    r.options_.keep_descriptor = opts.keep_descriptor;
    r.options_.memory = opts.memory;
    const detail::heap h(opts.memory);
    if (opts.external_files != nullptr) {
        r.callbacks_ = *opts.external_files;
        r.use_callbacks_ = true;
        if (r.callbacks_.map == nullptr && r.callbacks_.read_whole == nullptr && r.callbacks_.supply == nullptr)
            return errc::invalid_argument;
    }

    // The base directory as given: base_dir, else dirname(model_path), else ".".
    char* given = nullptr;
    if (opts.external_base_dir != nullptr) {
        if (*opts.external_base_dir == '\0') return errc::invalid_argument;
        given = h.copy_string(opts.external_base_dir);
    } else if (opts.model_path != nullptr) {
        given = h.copy_string(detail::model_directory(opts.model_path, detail::host_path_flavor));
    } else if (!r.use_callbacks_) {
        given = h.copy_string(".");
    }
    if (opts.external_base_dir != nullptr || opts.model_path != nullptr || !r.use_callbacks_) {
        if (given == nullptr) return errc::out_of_memory;
    }
    if (r.use_callbacks_) {
        r.base_ = given;  // passed to the callbacks as given, never canonicalized
        return r;
    }
    const detail::owned_string given_owner(h, given);
    result<char*> canonical = detail::canonical_directory(given, h);
    if (!canonical) return canonical.err();
    r.base_ = canonical.value();
    return r;
}

// --- opening a file --------------------------------------------------------

result<mapped_file> external_data_resolver::open_file(std::string_view location) noexcept {
    const std::uint64_t bytes_left = options_.max_external_bytes - total_bytes_;
    if (!use_callbacks_) {
        detail::beneath_options o;
        o.allow_hard_links = options_.allow_hard_links;
        o.max_size = bytes_left;
        o.file.file_hint = options_.external_hint;
        o.file.file_copy_below = options_.external_copy_below;
        o.file.memory = options_.memory;
        // A bound on the descriptors kept open: a model may name thousands of files.
        o.file.keep_descriptor = options_.keep_descriptor && count_ < kept_descriptor_files;
        return detail::open_beneath(base_, location, o);
    }
    // Located by "<base>/<location>"; the '#' names of in-memory data go to callbacks bare.
    const detail::heap h(options_.memory);
    const detail::owned_string path(h, detail::join_path(h, location[0] == '#' ? nullptr : base_, location));
    if (path.get() == nullptr) return errc::out_of_memory;
    result<mapped_file> f = mapped_file::from_callbacks(path.get(), callbacks_);
    if (f.err().code == errc::file_empty) return mapped_file();  // only empty ranges resolve
    if (f && f->size() > bytes_left) return errc::external_too_many_bytes;
    return f;
}

result<external_data_resolver::slot*> external_data_resolver::find_or_open(std::string_view location) noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
        if (std::string_view(slots_[i]->location, slots_[i]->location_size) == location) return slots_[i];
    }
    if (count_ >= options_.max_external_files) return errc::external_too_many_files;
    const detail::heap h(options_.memory);
    if (count_ == capacity_) {
        const std::size_t cap = capacity_ == 0 ? 8 : 2 * capacity_;
        auto** grown = static_cast<slot**>(h.allocate(cap * sizeof(slot*), alignof(slot*)));
        if (grown == nullptr) return errc::out_of_memory;
        if (count_ != 0) std::memcpy(grown, slots_, count_ * sizeof(slot*));
        h.deallocate(slots_, capacity_ * sizeof(slot*), alignof(slot*));
        slots_ = grown;
        capacity_ = cap;
    }
    result<mapped_file> file = open_file(location);
    if (!file) return file.err();
    char* name = h.copy_string(location);
    void* storage = name != nullptr ? h.allocate(sizeof(slot), alignof(slot)) : nullptr;
    if (storage == nullptr) {
        if (name != nullptr) h.free_string(name, location.size());
        return errc::out_of_memory;
    }
    slot* s = ::new (storage) slot;
    s->location = name;
    s->location_size = location.size();
    s->file = std::move(file.value());
    total_bytes_ += s->file.size();
    slots_[count_++] = s;
    return s;
}

const mapped_file* external_data_resolver::file_holding(const char* data, std::size_t size) const noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
        if (slots_[i]->file.holds(data, size)) return &slots_[i]->file;
    }
    return nullptr;
}

// --- resolving --------------------------------------------------------------

result<external_span> external_data_resolver::resolve(const external_entry* entries, std::size_t count,
                                                      std::uint64_t expected_size) noexcept {
    if (entries == nullptr && count != 0) return errc::invalid_argument;

    std::string_view location, offset_text, length_text, checksum_text;
    bool has_location = false, has_offset = false, has_length = false, has_checksum = false;
    std::uint32_t ignored = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::string_view key = entries[i].key;
        std::string_view* value = nullptr;
        bool* seen = nullptr;
        if (key == "location") value = &location, seen = &has_location;
        else if (key == "offset") value = &offset_text, seen = &has_offset;
        else if (key == "length") value = &length_text, seen = &has_length;
        else if (key == "checksum") value = &checksum_text, seen = &has_checksum;
        if (seen == nullptr) {
            ++ignored;
            continue;
        }
        if (*seen) return errc::external_duplicate_key;
        *seen = true;
        *value = entries[i].value;
    }
    if (!has_location) return errc::external_missing_location;
    if (location.empty()) return errc::external_empty_location;

    char normalized[detail::max_location + 2];
    std::size_t normalized_size = 0;
    if (location[0] == '#') {
        // Python ModelContainer's in-memory tensors: not a path at all.
        if (!use_callbacks_) return errc::external_in_memory_location;
        if (const errc e = detail::check_in_memory_location(location); e != errc::ok) return e;
        std::memcpy(normalized, location.data(), location.size());
        normalized_size = location.size();
    } else {
        const errc e = detail::normalize_location(location, detail::host_path_flavor, normalized, &normalized_size);
        if (e != errc::ok) return e;
    }

    std::uint64_t offset = 0, length = 0;
    if (has_offset) {
        const result<std::uint64_t> n = parse_range_number(offset_text, errc::external_offset_not_decimal);
        if (!n) return n.err();
        offset = n.value();
    }
    if (has_length) {
        const result<std::uint64_t> n = parse_range_number(length_text, errc::external_length_not_decimal);
        if (!n) return n.err();
        length = n.value();
        if (length > std::numeric_limits<std::uint64_t>::max() - offset) return errc::external_range_overflow;
        if (expected_size != unknown_size && length != expected_size) return errc::external_length_mismatch;
    }
    std::uint8_t want_digest[detail::sha1::digest_size];
    const bool check_sum = options_.verify_checksum && has_checksum;
    if (check_sum && !parse_sha1_hex(checksum_text, want_digest)) return errc::external_checksum_malformed;

    const result<slot*> found = find_or_open(std::string_view(normalized, normalized_size));
    if (!found) return found.err();
    slot* s = found.value();

    const std::uint64_t file_size = s->file.size();
    if (offset > file_size) return errc::external_offset_past_end;
    if (has_length) {
        if (length > file_size - offset) return errc::external_range_past_end;
    } else {
        length = file_size - offset;
        if (expected_size != unknown_size && length != expected_size) return errc::external_rest_of_file_mismatch;
    }
    if (check_sum) {
        // A file supplied on demand (remote) is fetched whole for its digest.
        if (const error e = s->file.ensure(0, 0)) return e;
        if (!s->digest_done) {
            detail::sha1::digest(s->file.data(), s->file.size(), s->digest);
            s->digest_done = true;
        }
        if (std::memcmp(s->digest, want_digest, sizeof want_digest) != 0) return errc::checksum_mismatch;
    }

    external_span span;
    span.data = s->file.data() + offset;
    span.size = static_cast<std::size_t>(length);
    span.location = std::string_view(s->location, s->location_size);
    span.offset = offset;
    span.offset_in_page = static_cast<std::uint32_t>(offset % 4096);
    span.ignored_keys = ignored;
    span.file = &s->file;
    return span;
}

}  // namespace onnxview
