import Foundation
import Testing
import VouchTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The spawner every process test relies on (`ChildProcess`, instead of Foundation's `Process`).
@Suite("Child processes")
struct ChildProcessTests {
    @Test("exit status, standard input and output, working directory and environment reach the child")
    func basics() async throws {
        let ran = try await ChildProcess.run(
            executable: "/bin/sh", arguments: ["-c", "read line; echo \"$line $VOUCH_CHILD_TEST $(pwd)\"; echo oops >&2; exit 3"],
            environment: ["VOUCH_CHILD_TEST": "seen", "PATH": "/usr/bin:/bin"],
            directory: "/tmp", standardInput: "hello\n")
        #expect(ran.termination == .exited(3))
        #expect(ran.stdout == "hello seen /tmp\n")
        #expect(ran.stderr == "oops\n")
    }

    @Test("a signal ends the child and is reported as such; SIGTERM is not blocked in the child")
    func signals() async throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(child.isRunning)
        child.send(SIGTERM)
        #expect(try await child.waitForExit() == .signalled(SIGTERM))
        #expect(!child.isRunning)
    }

    @Test("descriptors this process holds are not inherited")
    func descriptorsAreClosed() async throws {
        // A descriptor without close-on-exec, as some libraries leave them.
        let descriptor = open("/dev/null", O_RDONLY)
        try #require(descriptor > 2)
        defer { close(descriptor) }
        let ran = try await ChildProcess.run(executable: "/bin/sh", arguments: ["-c", "ls /proc/self/fd"])
        #expect(ran.termination == .exited(0))
        let inherited = ran.stdout.split(separator: "\n").compactMap { Int32($0) }
        // 0–2, plus the one `ls` opens to read the directory.
        #expect(!inherited.contains(descriptor), "inherited: \(inherited)")
        #expect(inherited.filter { $0 > 2 }.count <= 1, "inherited: \(inherited)")
    }

    @Test("a program that cannot start is an error, not a crash")
    func missingProgram() {
        #expect(throws: ChildProcess.SpawnError.self) { try ChildProcess(executable: "/nonexistent/program", arguments: []) }
    }
}
