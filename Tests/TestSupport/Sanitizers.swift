#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Whether AddressSanitizer instruments this process: its allocator quarantines freed memory, so freed addresses
/// are not reused soon and resident memory grows whatever the code under test does.
public var isAddressSanitizerActive: Bool {
    #if canImport(Darwin)
        dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__asan_init") != nil  // RTLD_DEFAULT
    #else
        dlsym(nil, "__asan_init") != nil
    #endif
}
