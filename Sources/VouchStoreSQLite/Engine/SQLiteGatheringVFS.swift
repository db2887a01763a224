import Synchronization
import VaporCSQLite

/// The platform's SQLite VFS with one change: what SQLite writes to a WAL file between two syncs
/// reaches the kernel as one `pwrite` per contiguous run instead of two per frame.
///
/// SQLite writes each WAL frame with two calls (its 24-byte header, then its page), and a group
/// commit of a few dozen sign-ins writes a hundred frames or more before its one fsync. Each call
/// pays the system call and ext4's per-call work; the bytes and the fsync are the same either way.
/// Durability does not change: nothing SQLite has written is visible to a reader or acknowledged
/// before `xSync`, and `xSync` writes out what is gathered before it syncs. Every other operation
/// on the file that could observe it (a read, its size, a truncation, a file control, closing)
/// writes out what is gathered first, so SQLite never sees the file other than as it wrote it.
///
/// Files other than WAL files are the platform VFS's own objects, untouched.
enum SQLiteGatheringVFS {
    static let name = "vouch-gathering"

    /// What was gathered for one WAL file, summed over the times it was closed: tests use it to
    /// see that the calls were gathered, not merely that the data arrived.
    struct Totals: Sendable, Equatable {
        /// `xWrite` calls SQLite made.
        var writesAsked = 0
        /// Writes made to the file beneath.
        var writesMade = 0
    }

    /// The totals of the WAL file at `path` (the database's path and `-wal`), kept per file so
    /// that other stores closing meanwhile (parallel tests) do not blur them. A server has one.
    static func totals(ofWAL path: String) -> Totals { closedTotals.withLock { $0[path] ?? Totals() } }

    /// Registers the VFS once (not as the default); `nil` when SQLite has no default VFS to wrap,
    /// in which case connections open with the default VFS.
    static let registeredName: String? = {
        guard let platform = sqlite_nio_sqlite3_vfs_find(nil) else { return nil }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: platform.pointee)
        vfs.pointee.pNext = nil
        vfs.pointee.zName = UnsafePointer(cString(name))
        vfs.pointee.szOsFile = Int32(fileHeaderSize) + platform.pointee.szOsFile
        vfs.pointee.xOpen = open
        platformVFS.withLock { $0 = Platform(vfs: platform) }
        guard sqlite_nio_sqlite3_vfs_register(vfs, 0) == SQLITE_OK else { return nil }
        return name
    }()

    /// A C string that lives as long as the process (the VFS's name, which SQLite keeps).
    private static func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(text.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        copy.initialize(from: utf8, count: utf8.count)
        return copy
    }

    // MARK: - The file object

    /// What SQLite allocates for a WAL file: this header, then the platform's file object.
    private struct GatheringFile {
        var base: sqlite3_file
        var buffer: Unmanaged<WriteBuffer>
    }

    /// The platform file starts at a multiple of 16 after the header.
    private static let fileHeaderSize = (MemoryLayout<GatheringFile>.stride + 15) & ~15

    /// Writes waiting for the next sync, as one contiguous run starting at `start`. Used by the
    /// one connection that owns the file, on whatever thread it runs on at the time; no access to
    /// its fields overlaps another, so they go without Swift's dynamic exclusivity check (two
    /// `xWrite` calls a WAL frame, each checked several times over).
    private final class WriteBuffer {
        /// The WAL file's path as SQLite named it, under which its totals are kept.
        let path: String
        @exclusivity(unchecked) var bytes: [UInt8] = []
        @exclusivity(unchecked) var start: Int64 = 0
        @exclusivity(unchecked) var writesAsked = 0
        @exclusivity(unchecked) var writesMade = 0
        /// Past this a run is written out before it grows further (a big transaction's spill).
        static let limit = 1 << 20

        init(path: String) { self.path = path }
    }

    private struct Platform: @unchecked Sendable {
        let vfs: UnsafeMutablePointer<sqlite3_vfs>
    }

    private static let platformVFS = Mutex<Platform?>(nil)
    private static let closedTotals = Mutex<[String: Totals]>([:])

    private static func header(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<GatheringFile> {
        UnsafeMutableRawPointer(file).assumingMemoryBound(to: GatheringFile.self)
    }

    private static func platformFile(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file) + fileHeaderSize).assumingMemoryBound(to: sqlite3_file.self)
    }

    private static func buffer(_ file: UnsafeMutablePointer<sqlite3_file>) -> WriteBuffer {
        header(file).pointee.buffer.takeUnretainedValue()
    }

    /// The platform's methods of a file that opened: never nil after a successful open.
    private static func methods(_ file: UnsafeMutablePointer<sqlite3_file>) -> sqlite3_io_methods {
        platformFile(file).pointee.pMethods.pointee
    }

    /// The most one platform write is given: the unix VFS writes at most 128 KiB - 1 bytes a call
    /// (`seekAndWrite` masks the count with 0x1ffff) and fails a write of 128 KiB or more, since
    /// SQLite itself never writes more than a page at once.
    private static let largestWrite = 120 << 10

    /// Writes out what is gathered; an error is SQLite's, from the platform's `xWrite`.
    private static func flush(_ file: UnsafeMutablePointer<sqlite3_file>) -> Int32 {
        let pending = buffer(file)
        guard !pending.bytes.isEmpty else { return SQLITE_OK }
        let real = platformFile(file)
        let write = methods(file).xWrite!
        var result = SQLITE_OK
        pending.bytes.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count && result == SQLITE_OK {
                let count = min(bytes.count - written, largestWrite)
                result = write(real, bytes.baseAddress! + written, Int32(count), pending.start + Int64(written))
                pending.writesMade += 1
                written += count
            }
        }
        pending.bytes.removeAll(keepingCapacity: true)
        return result
    }

    /// Writes out what is gathered, then hands the call to the platform's file (`forward`, given
    /// the platform's methods and file); nil file is SQLite's misuse.
    private static func flushed(
        _ file: UnsafeMutablePointer<sqlite3_file>?,
        then forward: (sqlite3_io_methods, UnsafeMutablePointer<sqlite3_file>) -> Int32
    ) -> Int32 {
        guard let file else { return SQLITE_MISUSE }
        let result = flush(file)
        guard result == SQLITE_OK else { return result }
        return forward(methods(file), platformFile(file))
    }

    /// Hands the call to the platform's file as it is (nothing gathered can change its answer).
    private static func forwarded(
        _ file: UnsafeMutablePointer<sqlite3_file>?,
        _ forward: (sqlite3_io_methods, UnsafeMutablePointer<sqlite3_file>) -> Int32
    ) -> Int32 {
        guard let file else { return SQLITE_MISUSE }
        return forward(methods(file), platformFile(file))
    }

    // MARK: - The VFS's one method of its own

    private static let open:
        @convention(c) (
            UnsafeMutablePointer<sqlite3_vfs>?, sqlite3_filename?, UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutablePointer<Int32>?
        ) -> Int32 = { _, name, file, flags, outFlags in
            guard let file, let platform = SQLiteGatheringVFS.platformVFS.withLock({ $0?.vfs }) else { return SQLITE_MISUSE }
            guard flags & SQLITE_OPEN_WAL != 0 else {
                // Not a WAL file: the platform's own object, where SQLite allocated it.
                return platform.pointee.xOpen!(platform, name, file, flags, outFlags)
            }
            let real = SQLiteGatheringVFS.platformFile(file)
            real.pointee.pMethods = nil
            let result = platform.pointee.xOpen!(platform, name, real, flags, outFlags)
            guard result == SQLITE_OK, real.pointee.pMethods != nil else {
                if real.pointee.pMethods != nil { _ = real.pointee.pMethods.pointee.xClose!(real) }
                file.pointee.pMethods = nil
                return result == SQLITE_OK ? SQLITE_CANTOPEN : result
            }
            SQLiteGatheringVFS.header(file).initialize(
                to: GatheringFile(
                    base: sqlite3_file(pMethods: SQLiteGatheringVFS.ioMethods),
                    buffer: Unmanaged.passRetained(WriteBuffer(path: name.map { String(cString: $0) } ?? ""))))
            return SQLITE_OK
        }

    // MARK: - The WAL file's methods

    /// Written once, then only read (SQLite keeps the pointer in every WAL file it opens).
    nonisolated(unsafe) private static let ioMethods: UnsafePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(
            to: sqlite3_io_methods(
                iVersion: 3,
                xClose: { file in
                    guard let file else { return SQLITE_MISUSE }
                    let flushed = SQLiteGatheringVFS.flush(file)
                    let pending = SQLiteGatheringVFS.header(file).pointee.buffer
                    let gathered = pending.takeUnretainedValue()
                    SQLiteGatheringVFS.closedTotals.withLock {
                        $0[gathered.path, default: Totals()].writesAsked += gathered.writesAsked
                        $0[gathered.path, default: Totals()].writesMade += gathered.writesMade
                    }
                    pending.release()
                    let real = SQLiteGatheringVFS.platformFile(file)
                    let closed = SQLiteGatheringVFS.methods(file).xClose!(real)
                    return flushed != SQLITE_OK ? flushed : closed
                },
                xRead: { file, data, amount, offset in SQLiteGatheringVFS.flushed(file, then: { $0.xRead!($1, data, amount, offset) }) },
                xWrite: { file, data, amount, offset in
                    guard let file, let data, amount >= 0 else { return SQLITE_MISUSE }
                    // The file keeps its buffer alive until xClose: borrowed, not retained, on the
                    // call SQLite makes twice for every frame.
                    return SQLiteGatheringVFS.header(file).pointee.buffer._withUnsafeGuaranteedRef { pending in
                        pending.writesAsked += 1
                        if !pending.bytes.isEmpty
                            && (offset != pending.start + Int64(pending.bytes.count) || pending.bytes.count + Int(amount) > WriteBuffer.limit)
                        {
                            let flushed = SQLiteGatheringVFS.flush(file)
                            guard flushed == SQLITE_OK else { return flushed }
                        }
                        if pending.bytes.isEmpty { pending.start = offset }
                        pending.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: Int(amount)))
                        return SQLITE_OK
                    }
                },
                xTruncate: { file, size in SQLiteGatheringVFS.flushed(file, then: { $0.xTruncate!($1, size) }) },
                xSync: { file, flags in SQLiteGatheringVFS.flushed(file, then: { $0.xSync!($1, flags) }) },
                xFileSize: { file, size in SQLiteGatheringVFS.flushed(file, then: { $0.xFileSize!($1, size) }) },
                xLock: { file, level in SQLiteGatheringVFS.forwarded(file, { $0.xLock!($1, level) }) },
                xUnlock: { file, level in SQLiteGatheringVFS.forwarded(file, { $0.xUnlock!($1, level) }) },
                xCheckReservedLock: { file, result in SQLiteGatheringVFS.forwarded(file, { $0.xCheckReservedLock!($1, result) }) },
                xFileControl: { file, operation, argument in SQLiteGatheringVFS.flushed(file, then: { $0.xFileControl!($1, operation, argument) }) },
                xSectorSize: { file in
                    guard let file else { return 4096 }
                    return SQLiteGatheringVFS.methods(file).xSectorSize!(SQLiteGatheringVFS.platformFile(file))
                },
                xDeviceCharacteristics: { file in
                    guard let file else { return 0 }
                    return SQLiteGatheringVFS.methods(file).xDeviceCharacteristics!(SQLiteGatheringVFS.platformFile(file))
                },
                // A WAL file has no shared memory and is never memory-mapped: SQLite asks these of the
                // database file, which is the platform's own object.
                xShmMap: { _, _, _, _, _ in SQLITE_IOERR },
                xShmLock: { _, _, _, _ in SQLITE_IOERR },
                xShmBarrier: { _ in },
                xShmUnmap: { _, _ in SQLITE_OK },
                xFetch: { _, _, _, pointer in
                    pointer?.pointee = nil
                    return SQLITE_OK
                },
                xUnfetch: { _, _, _ in SQLITE_OK }))
        return UnsafePointer(methods)
    }()
}
