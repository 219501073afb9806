import EmulatorCore
import Testing

@testable import EmulatorFunctions

@Suite struct DotEnvTests {
    @Test func parsesTheFormsTheCLIAccepts() throws {
        let text = """
            # a comment
            PLAIN=value with spaces   # trailing comment
            EMPTY=
            SINGLE='keeps \\n and # as is'
            DOUBLE="line1\\nline2\\t\\"quoted\\""
            MULTI="first
            second"
              SPACED  =  x
            URL=https://example.com/a?b=c
            """
        #expect(
            try DotEnv.parse(text) == [
                "PLAIN": "value with spaces", "EMPTY": "", "SINGLE": "keeps \\n and # as is",
                "DOUBLE": "line1\nline2\t\"quoted\"", "MULTI": "first\nsecond", "SPACED": "x", "URL": "https://example.com/a?b=c",
            ])
        #expect(try DotEnv.parse("A=1\r\nB=2\r\n") == ["A": "1", "B": "2"])
        #expect(try DotEnv.parse("A=1\nA=2") == ["A": "2"])
        #expect(try DotEnv.parse("") == [:])
        // An escape followed by a combining mark is still an escape (found by the fuzzer).
        #expect(try DotEnv.parse("A=\"x\\n\u{316}y\"") == ["A": "x\n\u{316}y"])
    }

    @Test func namesTheBadLine() {
        func message(_ text: String) -> String? {
            do {
                _ = try DotEnv.parse(text)
                return nil
            } catch let e as HttpsError { return e.message } catch { return "\(error)" }
        }
        #expect(message("A=1\nnot a pair\n") == "line 2: expected '=' after not")
        #expect(message("A=\"open\nB=2") == "line 2: unterminated double-quoted value of A")
        #expect(message("A='x' y") == "line 1: unexpected text after the quoted value of A")
        #expect(message("export A=1") == "line 1: 'export' is not supported; write KEY=VALUE")
        #expect(message("=1") == "line 1: expected KEY=VALUE")
    }

    @Test func refusesReservedAndMalformedKeys() {
        for key in ["PORT", "K_SERVICE", "GCLOUD_PROJECT", "FIREBASE_CONFIG", "FIREBASE_ANYTHING", "X_GOOGLE_X", "EXT_Y", "lower", "1ABC"] {
            #expect(throws: HttpsError.self, "\(key)") { try DotEnv.parse("\(key)=1") }
        }
        #expect(throws: Never.self) { try DotEnv.parse("_OK_1=1") }
    }
}
