import EmulatorCore
import Testing

@testable import EmulatorFunctions

@Suite struct FunctionEnvironmentTests {
    func sample() -> FunctionEnvironment {
        var e = FunctionEnvironment(
            inherited: [
                "PATH": "/usr/bin", "HOME": "/root", "PYTHONPATH": "/elsewhere", "GOOGLE_CLOUD_PROJECT": "prod",
                "FIRESTORE_EMULATOR_HOST": "old:1", "KEEP": "inherited",
            ],
            project: "demo-p", venv: "/src/venv")
        e.emulatorHosts = ["FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080", "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099"]
        e.credentialsPath = "/tmp/sa.json"
        e.paramDefaults = ["GREETING": "hello", "MAX": "3"]
        e.userEnv = ["GREETING": "from .env", "KEEP": "user", "TZ": "Europe/Paris"]
        e.secrets = ["API_KEY": "s3cret"]
        e.configured = ["FROM_CONFIG": "yes"]
        return e
    }

    @Test func layersLikeTheCLI() {
        let env = sample().forFunction("whoami", signatureType: "http")
        #expect(env["PATH"] == "/src/venv/bin:/usr/bin" && env["VIRTUAL_ENV"] == "/src/venv" && env["HOME"] == "/root")
        #expect(env["PYTHONPATH"] == nil && env["GOOGLE_CLOUD_PROJECT"] == nil)
        #expect(env["GREETING"] == "from .env" && env["MAX"] == "3" && env["KEEP"] == "user" && env["FROM_CONFIG"] == "yes")
        #expect(env["TZ"] == "UTC")  // the platform's value wins over the user's
        #expect(env["GCLOUD_PROJECT"] == "demo-p" && env["GOOGLE_CLOUD_QUOTA_PROJECT"] == "demo-p" && env["K_REVISION"] == "1")
        #expect(env["FUNCTIONS_EMULATOR"] == "true" && env["FIREBASE_DEBUG_MODE"] == "true")
        #expect(env["FIRESTORE_EMULATOR_HOST"] == "127.0.0.1:8080" && env["FIREBASE_AUTH_EMULATOR_HOST"] == "127.0.0.1:9099")
        #expect(
            env["FIREBASE_CONFIG"]
                == #"{"databaseURL":"https://demo-p-default-rtdb.firebaseio.com","projectId":"demo-p","storageBucket":"demo-p.appspot.com"}"#)
        #expect(env["API_KEY"] == "s3cret" && env["GOOGLE_APPLICATION_CREDENTIALS"] == "/tmp/sa.json")
        #expect(env["FUNCTION_TARGET"] == "whoami" && env["K_SERVICE"] == "whoami" && env["FUNCTION_SIGNATURE_TYPE"] == "http")
        #expect(env["HOST"] == "127.0.0.1" && env["DEBUG"] == "False" && env["PYTHONUNBUFFERED"] == "1" && env["PORT"] == nil)
    }

    @Test func theCommonEnvironmentHasNoFunctionVariables() {
        let env = sample().common
        #expect(env["FUNCTION_TARGET"] == nil && env["K_SERVICE"] == nil && env["FUNCTION_SIGNATURE_TYPE"] == nil)
    }

    @Test func dotEnvFilesMergeInOrder() {
        #expect(
            FunctionEnvironment.mergeUserEnv(dotEnv: ["A": "1", "B": "1"], projectEnv: ["B": "2", "C": "2"], localEnv: ["C": "3"]) == [
                "A": "1", "B": "2", "C": "3",
            ])
        #expect(FunctionEnvironment.mergeUserEnv(dotEnv: nil, projectEnv: nil, localEnv: nil) == [:])
    }
}
