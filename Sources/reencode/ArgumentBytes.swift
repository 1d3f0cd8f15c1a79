import Foundation
import Pipeline

/// Arguments reach reencode as bytes; Swift's `CommandLine.arguments` replaces bytes that are not
/// UTF-8 with U+FFFD, so a Latin-1 file name (`caf\xE9.mp4`) became a path that names nothing
/// and `run` called an existing file "no such file". Paths reach the libraries as UTF-8, so
/// such an argument is refused, escaped (`NameText`) and said to be what it is: exit 64.
/// Returns the exit status, or nil when every argument is UTF-8.
func refuseUndecodableArgument(_ arguments: [String]) -> Int32? {
    for i in 1..<Int(CommandLine.argc) {
        guard let p = CommandLine.unsafeArgv[i] else { continue }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
        guard !NameText.isUTF8(bytes) else { continue }
        let message = "argument \(i) is not UTF-8 text: \(NameText.escaped(bytes: bytes)) (reencode takes file names as UTF-8: rename the file, e.g. convmv -f latin1 -t utf8)"
        printError("Error: \(message)")
        if arguments.contains("--json") {
            writeOut(jsonString(["status": "error", "exitCode": ExitCode.usage, "error": message] as [String: Any]))
        }
        return ExitCode.usage
    }
    return nil
}
