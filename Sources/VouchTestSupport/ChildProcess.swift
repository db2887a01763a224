#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Synchronization

/// A child process started with `posix_spawn`, for tests that run `vouch`, scripts and tools.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close inherited
/// descriptors and copies each directory entry's whole 256-byte name field, which reads past the
/// end of glibc's buffer and crashes when an entry sits at the end of a page
/// (swift-corelibs-foundation PR #5472, not in Swift 6.3.1). A test suite with a thousand open
/// descriptors hit it in about one run in ten. Here the child's descriptors are closed by the
/// C library (`closefrom` as a spawn action), and standard input, output and error are files.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    public let pid: pid_t
    /// Set once the child has been reaped; `waitpid` is never called again after that.
    private let reaped = Mutex<Termination?>(nil)

    /// Starts `executable` with `arguments` (not including the program name).
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` passes on this process's.
    ///   - directory: the working directory; `nil` keeps this process's.
    ///   - standardInput: a file to read, or `nil` for `/dev/null`.
    ///   - standardOutput, standardError: files to write (created or truncated), or `nil` for `/dev/null`.
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, standardInput: String? = nil,
        standardOutput: String? = nil, standardError: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { throw SpawnError(description: "posix_spawn_file_actions_init failed") }
        defer { posix_spawn_file_actions_destroy(&actions) }
        let null = "/dev/null"
        var failures: [String] = []
        func check(_ result: Int32, _ what: String) {
            if result != 0 { failures.append("\(what): \(String(cString: strerror(result)))") }
        }
        check(posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? null, O_RDONLY, 0), "stdin")
        check(posix_spawn_file_actions_addopen(&actions, 1, standardOutput ?? null, O_WRONLY | O_CREAT | O_TRUNC, 0o600), "stdout")
        check(posix_spawn_file_actions_addopen(&actions, 2, standardError ?? null, O_WRONLY | O_CREAT | O_TRUNC, 0o600), "stderr")
        if let directory {
            guard let addChdir = Self.glibcAction(named: "posix_spawn_file_actions_addchdir_np", as: AddChdir.self) else {
                throw SpawnError(description: "this C library cannot set a spawned child's working directory")
            }
            check(addChdir(&actions, directory), "chdir")
        }
        // Nothing else of this process's (sockets, database files, pipes) reaches the child.
        if let addCloseFrom = Self.glibcAction(named: "posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self) {
            check(addCloseFrom(&actions, 3), "closefrom")
        }
        guard failures.isEmpty else { throw SpawnError(description: failures.joined(separator: "; ")) }

        // The child starts with no signal blocked and every signal at its default, whatever the
        // spawning thread had (libdispatch's threads block some): a SIGTERM must reach it.
        var attributes = posix_spawnattr_t()
        guard posix_spawnattr_init(&attributes) == 0 else { throw SpawnError(description: "posix_spawnattr_init failed") }
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        check(posix_spawnattr_setsigmask(&attributes, &noSignals), "signal mask")
        check(posix_spawnattr_setsigdefault(&attributes, &allSignals), "signal defaults")
        check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)), "flags")
        guard failures.isEmpty else { throw SpawnError(description: failures.joined(separator: "; ")) }

        let argv = [executable] + arguments
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let result = Self.withCStrings(argv) { argvPointers in
            Self.withCStrings(envp) { envpPointers in
                posix_spawn(&child, executable, &actions, &attributes, argvPointers, envpPointers)
            }
        }
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    deinit {
        // No test leaves a child behind, whatever went wrong: killed and reaped.
        if termination == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }

    /// How the child ended, or `nil` while it runs (never blocks).
    public var termination: Termination? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            guard result == pid else { return nil }
            reaped = Self.termination(status)
            return reaped
        }
    }

    public var isRunning: Bool { termination == nil }

    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits for the child to end, polling so that no thread of the concurrency pool blocks.
    public func waitForExit(pollingEvery interval: Duration = .milliseconds(10)) async throws -> Termination {
        while true {
            if let termination { return termination }
            try await Task.sleep(for: interval)
        }
    }

    /// Waits for the child to end, blocking this thread: for synchronous probes only.
    public func waitForExitBlocking() -> Termination {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let ended = Self.termination(status)
            reaped = ended
            return ended
        }
    }

    /// Runs a command to its end with its output in files, and returns how it ended with what it
    /// wrote. For short tools (`python3 -c …`, scripts); `timeout` bounds the wait.
    public static func run(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, standardInput: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> (termination: Termination, stdout: String, stderr: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var inputPath: String?
        if let standardInput {
            let url = scratch.appendingPathComponent("stdin")
            try Data(standardInput.utf8).write(to: url)
            inputPath = url.path
        }
        let outPath = scratch.appendingPathComponent("stdout").path
        let errPath = scratch.appendingPathComponent("stderr").path
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment,
            directory: directory, standardInput: inputPath,
            standardOutput: outPath, standardError: errPath)
        let deadline = ContinuousClock.now + timeout
        var ended = child.termination
        while ended == nil {
            guard ContinuousClock.now < deadline else {
                child.send(SIGKILL)
                throw SpawnError(description: "\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
            ended = child.termination
        }
        guard let termination = ended else { throw SpawnError(description: "\(executable) has no exit status") }
        func text(_ path: String) -> String {
            (try? String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)) ?? ""
        }
        return (termination, text(outPath), text(errPath))
    }

    private static func termination(_ status: Int32) -> Termination {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `_np` spawn actions are not in the Swift module map: found by name (glibc 2.29+
    /// and 2.34+; Debian 12 has 2.36).
    private static func glibcAction<Function>(named name: String, as type: Function.Type) -> Function? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    private static func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
