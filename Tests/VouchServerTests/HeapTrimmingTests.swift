import Testing
import VouchServer

@Suite("Heap trimming")
struct HeapTrimmingTests {
    @Test("the operator's MALLOC_TRIM_THRESHOLD_ wins; otherwise glibc takes the server's threshold")
    func appliesUnlessTheEnvironmentChose() {
        #expect(HeapTrimming.apply(environment: [HeapTrimming.environmentVariable: "131072"]) == nil)
        #if canImport(Glibc)
            // mallopt answers 1 only when it accepted the setting: the symbol was found and called.
            #expect(HeapTrimming.apply(environment: [:]) == HeapTrimming.defaultThreshold)
        #endif
    }
}
