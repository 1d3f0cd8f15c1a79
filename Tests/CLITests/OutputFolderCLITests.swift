import Foundation
import Testing

/// `-o` naming a folder (or a link to one): the message's example file name has the extension of
/// the container the recipe asks for, so following it does not run into the extension check.
@Suite("-o naming a folder: the example fits the recipe's format")
struct OutputFolderCLITests {
    @Test("an m4a recipe with -o a folder or a link to one: 73, 'such as …/out.m4a', for run and plan")
    func m4aFolder() throws {
        let dir = Scratch()
        let src = try NegotiationCLITests.clip(dir)
        let recipe = try NegotiationCLITests.recipe(dir, """
        recipe: 1
        output: { format: m4a }
        reader:
          outputs:
            a: { track: audio }
        writer:
          inputs:
            - { source: a, settings: { codec: aac } }

        """)
        let folder = dir.file("songs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let link = dir.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder)
        for target in [folder, link] {
            for command in ["run", "plan"] {
                let r = try Binary.run([command, recipe, "-i", src, "-o", target], timeLimit: 60)
                #expect(r.status == 73, "\(command) \(target)")
                #expect(r.stderr == "error: \(target): is a folder: the output must name a file (such as \(target)/out.m4a)\n", "\(command) \(target)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
        #expect(dir.contents == ["clip.mp4", "link", "r.yaml", "songs"])
    }
}
