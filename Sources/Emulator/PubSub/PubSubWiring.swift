import EmulatorCore
import EmulatorFunctions
import EmulatorPubSub

/// Connects Pub/Sub and the functions host: every publish (gRPC, REST, dead letters, schedules)
/// reaches the functions subscribed to its topic through the host's at-least-once queue; a
/// function registered with a Pub/Sub trigger gets its topic created, as deploying does in
/// production; a scheduled run publishes Cloud Scheduler's message on the topic production's
/// scheduler jobs for v1 functions use (`firebase-schedule-<name>-<region>`), on the project clock.
enum PubSubWiring {
    /// Installs the observer and the functions host's platform hooks.
    static func connect(pubsub: PubSubService, functions: FunctionsHost, revisions: ProjectRevisions) {
        // Weak: the services bundle owns both; strong captures would make a cycle.
        pubsub.setObserver { [weak functions] project, topic, messages in
            revisions.bump(project)
            functions?.published(project: project, topic: topic, messages: messages.map(\.json))
        }
        functions.setPlatformHooks(
            FunctionsPlatformHooks(
                registered: { [weak pubsub] project, def in
                    guard let pubsub else { return }
                    switch def.trigger {
                    case .pubsub(let topic): ensureTopic(pubsub, project, topic)
                    case .scheduled: ensureTopic(pubsub, project, scheduleTopic(def.name, def.region))
                    default: break
                    }
                },
                scheduled: { [weak pubsub] project, name, region, time in
                    guard let pubsub else { return }
                    let topic = "projects/\(project)/topics/\(scheduleTopic(name, region))"
                    let message = PublishedMessage(
                        id: "", data: Base64.encode(Array("{}".utf8)), attributes: ["scheduleTime": time.rfc3339()],
                        publishTime: time)
                    _ = try? pubsub.publish(project: project, topic: topic, [message])
                }))
    }

    /// The topic Cloud Scheduler publishes a scheduled function's runs on.
    static func scheduleTopic(_ name: String, _ region: String) -> String { "firebase-schedule-\(name)-\(region)" }

    /// Creates `projects/{project}/topics/{id}` unless it exists (or the id is not a valid topic id).
    static func ensureTopic(_ pubsub: PubSubService, _ project: String, _ id: String) {
        guard PubSubName.isValidId(Substring(id)) else { return }
        do {
            _ = try pubsub.createTopic(["name": .string("projects/\(project)/topics/\(id)")])
        } catch let e as EmulatorError where e.code == .alreadyExists {
        } catch {}
    }
}
