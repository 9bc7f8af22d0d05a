// mapped_file and shared_file: the parts that do not depend on the platform.
#include <atomic>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <new>

#include "file_internal.hpp"
#include "onnxview/file.hpp"

namespace onnxview {

namespace detail {
// Platform half (file_posix.cpp / file_win32.cpp).
void unmap(const char* data, std::size_t size) noexcept;
error advise_mapping(const char* data, std::size_t size, access_hint hint, std::uint64_t offset,
                     std::uint64_t length) noexcept;
bool mapping_resident(const char* data, std::size_t size, std::uint32_t sample_pages) noexcept;
error make_mapping_writable(const char* data, std::size_t size, bool writable) noexcept;
error copy_mapped_pages(const char* data, std::size_t size, std::uint64_t offset, std::uint64_t length) noexcept;
// Copies [offset, offset + size) of the file open as `descriptor` (pread).
error read_descriptor_at(int descriptor, std::uint64_t offset, void* out, std::size_t size) noexcept;
void close_fd(int fd) noexcept;
std::size_t page_size() noexcept;

}  // namespace detail

mapped_file::mapped_file(mapped_file&& other) noexcept
    : data_(other.data_),
      size_(other.size_),
      give_back_(other.give_back_),
      give_back_user_(other.give_back_user_),
      kind_(other.kind_),
      descriptor_(other.descriptor_) {
    other.data_ = nullptr;
    other.size_ = 0;
    other.kind_ = storage::none;
    other.descriptor_ = -1;
}

mapped_file& mapped_file::operator=(mapped_file&& other) noexcept {
    if (this != &other) {
        reset();
        data_ = other.data_;
        size_ = other.size_;
        give_back_ = other.give_back_;
        give_back_user_ = other.give_back_user_;
        kind_ = other.kind_;
        descriptor_ = other.descriptor_;
        other.data_ = nullptr;
        other.size_ = 0;
        other.kind_ = storage::none;
        other.descriptor_ = -1;
    }
    return *this;
}

mapped_file::~mapped_file() { reset(); }

void mapped_file::reset() noexcept {
    switch (kind_) {
        case storage::mapped:
            detail::unmap(data_, size_);
            break;
        case storage::buffer:
            if (give_back_.deallocate != nullptr)
                give_back_.deallocate(give_back_user_, const_cast<char*>(data_), size_, detail::heap::default_alignment);
            else
                std::free(const_cast<char*>(data_));
            break;
        case storage::callback:
            if (give_back_.release != nullptr) give_back_.release(give_back_user_, data_, size_);
            break;
        case storage::supplied: {
            const auto* supplier = static_cast<const file_supplier*>(give_back_user_);
            if (supplier->release != nullptr) supplier->release(supplier->user_data, data_, size_);
            break;
        }
        case storage::none:
        case storage::borrowed:
            break;
    }
    if (descriptor_ >= 0) detail::close_fd(descriptor_);
    descriptor_ = -1;
    data_ = nullptr;
    size_ = 0;
    kind_ = storage::none;
}

mapped_file mapped_file::from_memory(const void* data, std::size_t size) noexcept {
    if (data == nullptr) size = 0;
    return detail::file_access::make(static_cast<const char*>(data), size, storage::borrowed);
}

result<mapped_file> mapped_file::from_callbacks(const char* path, const file_callbacks& callbacks) noexcept {
    if (path == nullptr || (callbacks.map == nullptr && callbacks.read_whole == nullptr && callbacks.supply == nullptr)) {
        return errc::invalid_argument;
    }
    if (callbacks.supply != nullptr) {
        const void* memory = nullptr;
        std::uint64_t bytes = 0;
        const file_supplier* supplier = nullptr;
        const int rc = callbacks.supply(callbacks.user_data, path, &memory, &bytes, &supplier);
        if (rc != 0) return error(errc::callback_failed, 0, rc);
        return supplied(static_cast<const char*>(memory), bytes, supplier);
    }
    const void* data = nullptr;
    std::uint64_t size = 0;
    int rc = -1;
    if (callbacks.map != nullptr) rc = callbacks.map(callbacks.user_data, path, &data, &size);
    if (rc != 0 && callbacks.read_whole != nullptr) {
        data = nullptr;
        size = 0;
        rc = callbacks.read_whole(callbacks.user_data, path, &data, &size);
    }
    if (rc != 0) return error(errc::callback_failed, 0, rc);
    // From here on the callback's bytes are ours: release them on every exit.
    mapped_file f = detail::file_access::make(static_cast<const char*>(data), 0, storage::callback);
    detail::file_access::give_back_with(f, callbacks);
    if (size == 0 || data == nullptr) {
        f.size_ = static_cast<std::size_t>(size);  // released with the size it was given
        return errc::file_empty;
    }
    if (size > std::numeric_limits<std::size_t>::max()) return errc::file_too_large;
    f.size_ = static_cast<std::size_t>(size);
    return f;
}

result<mapped_file> mapped_file::supplied(const char* data, std::uint64_t size,
                                          const file_supplier* supplier) noexcept {
    if (data == nullptr || supplier == nullptr || supplier->fetch == nullptr) return errc::invalid_argument;
    const bool too_large = size > std::numeric_limits<std::size_t>::max();
    mapped_file f = detail::file_access::make(data, too_large ? 0 : static_cast<std::size_t>(size), storage::supplied);
    f.give_back_user_ = const_cast<file_supplier*>(supplier);
    // Both released through the supplier.
    if (too_large) return errc::file_too_large;
    if (size == 0) return errc::file_empty;
    return f;
}

error mapped_file::ensure(std::uint64_t offset, std::uint64_t length) const noexcept {
    if (offset > size_ || length > size_ - offset) return errc::invalid_argument;
    if (kind_ != storage::supplied) return {};
    if (length == 0) length = size_ - offset;
    if (length == 0) return {};
    const auto* supplier = static_cast<const file_supplier*>(give_back_user_);
    return supplier->fetch(supplier->user_data, offset, length);
}

error mapped_file::read_at(std::uint64_t offset, void* out, std::size_t size) const noexcept {
    if (offset > size_ || size > size_ - offset || (out == nullptr && size != 0)) return errc::invalid_argument;
    if (size == 0) return {};
    if (descriptor_ >= 0) return detail::read_descriptor_at(descriptor_, offset, out, size);
    if (const error e = ensure(offset, size)) return e;
    std::memcpy(out, data_ + offset, size);
    return {};
}

error mapped_file::advise(access_hint hint, std::uint64_t offset, std::uint64_t length) const noexcept {
    if (offset > size_) return errc::invalid_argument;
    if (kind_ != storage::mapped) return {};
    return detail::advise_mapping(data_, size_, hint, offset, length);
}

page_copies::page_copies(const mapped_file& file) noexcept : file_(&file) {
    if (file.kind() == mapped_file::storage::mapped) err_ = detail::make_mapping_writable(file.data(), file.size(), true);
}

page_copies::~page_copies() {
    if (file_->kind() == mapped_file::storage::mapped && err_.ok())
        (void)detail::make_mapping_writable(file_->data(), file_->size(), false);
}

error page_copies::copy(std::uint64_t offset, std::uint64_t length) noexcept {
    if (!err_.ok()) return err_;
    if (offset > file_->size()) return errc::invalid_argument;
    if (file_->kind() != mapped_file::storage::mapped) return {};
    return detail::copy_mapped_pages(file_->data(), file_->size(), offset, length);
}

bool mapped_file::resident(std::uint32_t sample_pages) const noexcept {
    if (kind_ != storage::mapped) return true;
    return detail::mapping_resident(data_, size_, sample_pages);
}

// --- shared_file ---------------------------------------------------------

struct shared_file::block {
    std::atomic<std::uint32_t> refs{1};
    mapped_file file;
    detail::heap heap;  // the block's own
    block(mapped_file&& f, const detail::heap& h) noexcept : file(std::move(f)), heap(h) {}
};

result<shared_file> shared_file::make(mapped_file&& file, const options& opts) noexcept {
    const detail::heap h(opts.memory);
    void* storage = h.allocate(sizeof(block), alignof(block));
    block* b = storage != nullptr ? ::new (storage) block(std::move(file), h) : nullptr;
    if (b == nullptr) {
        mapped_file dropped(std::move(file));  // release it as documented
        return errc::out_of_memory;
    }
    shared_file s;
    s.block_ = b;
    return s;
}

shared_file::shared_file(const shared_file& other) noexcept : block_(other.block_) {
    if (block_ != nullptr) block_->refs.fetch_add(1, std::memory_order_relaxed);
}

shared_file& shared_file::operator=(const shared_file& other) noexcept {
    if (block_ != other.block_) {
        if (other.block_ != nullptr) other.block_->refs.fetch_add(1, std::memory_order_relaxed);
        drop();
        block_ = other.block_;
    }
    return *this;
}

shared_file& shared_file::operator=(shared_file&& other) noexcept {
    if (this != &other) {
        drop();
        block_ = other.block_;
        other.block_ = nullptr;
    }
    return *this;
}

shared_file::~shared_file() { drop(); }

void shared_file::drop() noexcept {
    // acq_rel: the thread that frees must see every other owner's last use.
    if (block_ != nullptr && block_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        const detail::heap h = block_->heap;
        block_->~block();
        h.deallocate(block_, sizeof(block), alignof(block));
    }
    block_ = nullptr;
}

const mapped_file* shared_file::get() const noexcept {
    return block_ != nullptr ? &block_->file : nullptr;
}

std::string_view shared_file::bytes() const noexcept {
    return block_ != nullptr ? block_->file.bytes() : std::string_view();
}

std::uint32_t shared_file::use_count() const noexcept {
    return block_ != nullptr ? block_->refs.load(std::memory_order_relaxed) : 0;
}

void release_payload(const mapped_file& model, const char* data, std::size_t size) noexcept {
    if (model.kind() == mapped_file::storage::mapped && model.holds(data, size)) {
        // Only the pages wholly inside the payload: the partial pages at its
        // ends hold metadata, perhaps a private copy (page_copies) that
        // dropping would turn back into a fault mapping a whole folio of
        // weights.
        const std::size_t block = detail::page_size();
        const std::size_t offset = static_cast<std::size_t>(data - model.data());
        const std::size_t begin = (offset + block - 1) / block * block;
        const std::size_t end = offset + size == model.size() ? model.size() : (offset + size) / block * block;
        if (begin < end) (void)model.advise(access_hint::dontneed, begin, end - begin);
        return;
    }
    release_pages(data, size);
}

}  // namespace onnxview
