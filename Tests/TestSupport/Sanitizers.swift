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

/// Whether ThreadSanitizer instruments this process: every memory access is checked, so code runs several times
/// slower, and threads may wait seconds for a turn when every suite runs at once.
public var isThreadSanitizerActive: Bool {
    #if canImport(Darwin)
        dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil  // RTLD_DEFAULT
    #else
        dlsym(nil, "__tsan_init") != nil
    #endif
}

/// How much longer than in a plain build a bounded wait should allow before it calls something stuck.
public var sanitizerSlowdown: Double {
    isThreadSanitizerActive || isAddressSanitizerActive ? 6 : 1
}
