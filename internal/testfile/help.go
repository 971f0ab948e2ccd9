package testfile

// Help is mcpv test's long help; the format of a file is Reference's.
const Help = `Runs test files against MCP servers, for CI. A file names its server as the command line does and lists steps; each step is an mcpv command, in the same words, with what must come of it. A file's steps share one session; files run in parallel (--parallel). Every file is read and checked (its jq expressions, regular expressions, schemas, steps and server flags) before any server starts: a mistake is FILE:LINE:COLUMN: message, exit 2.

What a file holds and how a run reports is 'mcpv help test-files'. Without FILE, mcpv test runs the *.mcpv.yaml files here and the .yaml files in ./mcpv-tests, once trusted ('mcpv trust FILE'). It exits 0 when every step passed, else with the first failing file's code: its server's (4, 5...), 1 for a failed step, 2 for a mistake.

Examples:

    $ mcpv test
    $ mcpv test tests/smoke.yaml --format junit --output junit.xml
    $ mcpv test --lint --snapshot --fail-fast tests/
    $ mcpv test --filter 'echo' --format tap tests/ | tap-parser`

// Reference is 'mcpv help test-files': the format of a test file, and how
// a run reads, runs and reports it.
const Reference = `A file is YAML (a JSON file, being YAML, works when named); the JSON Schema docs/mcpv-test.schema.json describes it for editors. Without FILE, mcpv test runs the *.mcpv.yaml (and *.mcpv.yml) files of the current directory and the .yaml and .yml files in ./mcpv-tests, each only once its content is trusted ('mcpv trust FILE', as for a project config file; exit 2 until then): a test file is code, which may start any command. A file or directory named on the command line runs without that, as CI names its own checkout's files:

    name: demo server                    # optional; default: the file's name
    server:                              # one of command, url, name (a config
                                         #   name), session
      command: [./demo-server, --quiet]  # the words after --; runs in the
                                         #   file's directory
      env: {LOG_LEVEL: debug}            # any session flag by its long name:
      timeout: 30s                       #   url, headers: {Name: value},
                                         #   protocol-era, connect-timeout,
                                         #   auth, client-id, root, ...
    steps:
      - ping:
      - call: echo message=hi            # COMMAND: the rest of its command line
        expect:
          jq: .structuredContent.message == "hi"
        capture:
          said: .content[0].text         # a jq expression's first output
      - run: call echo message={{said}} -q .content[0].text  # any command line
        expect: {equals: hi}
      - call: {tool: add, args: {a: 2, b: 3}}                # or its parts
        expect: {jq: [.structuredContent.sum == 5], output-schema: true}
        within: 2s
      - read: demo://nothing
        expect: {error-code: -32002, error-message: not found}
      - snapshot: demo.snapshot.json     # tools, prompts, templates vs the file
      - lint:                            # or {ignore: [description]}
      - cost: {max: 8000, tools: {add: 300}}  # tokens, as mcpv cost counts

A step is one of run: LINE, snapshot: FILE, lint:, cost: {max, tools, tokenizer, as} (a budget in tokens for the surface and for each tool named, as mcpv cost counts them), or a command as its key: info, ping, list-tools, call, list-resources, list-resource-templates, read, list-prompts, get-prompt, complete, tasks, skills, request. A command's value is the rest of its command line, a list of its words, or a mapping: call {tool, args, flags}, get-prompt {name, args, flags}, read {uri, flags}, request {method, params, flags}, complete {prompt or template, arg, context, flags}. Every option a batch line takes works (-q, -r, -e, --text, --no-validate, --task, ...). A step may also have name:, within: DURATION (its time budget; it is cancelled when that runs out), skip: REASON and think: DURATION or MIN..MAX (the pause a virtual user of mcpv load --scenario takes before it; mcpv test does not wait).

Expectations (expect:), all checked; without exit, is-error or error-code the step must succeed (exit 0):

    exit: N              the exit code mcpv would end with
                         (mcpv help exit-codes)
    is-error: BOOL       the tool result's isError (true means exit 1)
    error-code: N        the JSON-RPC error's code (exit 3);
                         error-message: REGEXP its message
    jq: EXPR | [EXPR]    each must output only true values (--jq's gojq;
                         captures are $name)
    equals: VALUE        the value, compared as JSON (numbers by value, keys in
                         any order)
    equals-file: FILE    the same, with the value in a JSON or YAML file
    matches: REGEXP|[..] the text (a string; a result's text content) matches
    schema: SCHEMA       the value is valid against this JSON Schema (or
                         schema-file: FILE)
    output-schema: true  the result's structuredContent is valid against the
                         tool's outputSchema

The value the expectations see is what the step prints (its result, after its own -q), or, when it fails without printing, its error object as batch prints it: {"code":..., "message":...}. On failure the report shows what was expected and what came; a jq comparison shows the values of both sides. Each jq expression of a file (an expectation, a capture, a step's -q) may run for 5s and allocate 512 MiB: past that its step fails, and the run goes on.

${VAR}, ${env:VAR} and ${VAR:-default} expand from the environment, as in config files (with ${workspaceFolder}, the test file's directory, and ${userHome}), in the server section and in a step's command line and arguments, when the file is read (an unset variable is a mistake in the file). {{name}} is the value an earlier step captured, filled in when the step runs: a string as it is, anything else as JSON; in an args or params mapping a string that is only {{name}} becomes the value itself; {{{{ is a literal {{. Keys starting with x- at the top of a file are left alone: a place for YAML anchors that steps merge with <<: *anchor. A step whose captures are missing (the step that captures them failed) is skipped. Paths in a file (snapshot, equals-file, schema-file, and --config, --cacert, --answers, --root, --events, @FILE in the server section) are relative to the file's directory, and a name: server is looked for in config files as from there. The files a test file reads for the test or writes (snapshot, equals-file, schema-file, --answers, --events, and @FILE in the server section and in steps) stay inside its directory's tree and are never symbolic links (a mistake in the file, exit 2); a step writes no files of its own (skills pull and --save-dir are refused). --output, and --events given to mcpv test, may name any file, but are not written through a symbolic link; that --events is one log for every file's session. Session flags given to mcpv test itself apply to every file, below each file's own.

Snapshots: a snapshot step lists the server's tools, prompts and resource templates and compares them with FILE: a breaking change (a tool, prompt, argument or property removed, a type narrowed, a new required argument, an enum value removed) fails the step with the changes listed; other changes are noted. A list the server declares but answers with method not found (many leave out resources/templates/list) is empty, recorded in FILE as such, and noted. A missing FILE is written, except in CI (--ci, the default when the CI environment variable is set), where it fails the step with the command that records it; --update writes it anew. --snapshot adds a step comparing with NAME.snapshot.json beside each test file NAME.yaml.

Lint: a lint step checks the server against the specification's rules (tool names, input and output schemas in their dialect, pagination that ends, capabilities that match what the server serves, descriptions; a stdio server's output on its stdout that is not JSON-RPC, seen in the whole session, is a warning of the last lint step, stray-output): each finding names the object and the rule; errors fail, warnings are noted. A lint step also checks the result of every call step after it in its file against its tool's outputSchema (structured-result); --lint adds a lint step to every file and checks every call's result.

Reports: text on stdout (a line per step, the failing expectations under it, a summary line); --format junit (JUnit XML, Jenkins format: a testsuite per file, a testcase per step), tap (TAP 14, a subtest per file, YAML diagnostics) or json, on stdout or into --output FILE (the text report then stays on stdout; with the text format it goes into FILE). FILE is made before any server starts. A closed stdout (| head) ends no run: the rest is not written, every file still runs, and the exit status is the run's. The JSON report is {"passed", "counts": {"files", "passed", "failed", "skipped"}, "durationMs", "files": [{"file", "name", "server", "passed", "exit", "error"?, "durationMs", "warnings"? (what the session warned of), "stderr"?, "counts", "steps": [{"index", "name", "line", "status" (passed, failed, skipped), "reason"?, "exit", "durationMs", "failures"?: [{"expectation", "message", "expected"?, "actual"?, "details"?}], "notes"?}]}]}.

Exit status: 0 when every step passed; else the code of the first file (in the order given) whose server could not be reached or whose session broke (4 transport, 5 authorization, ...); else 1 when a step failed; 2 for a mistake in a file or a flag, before anything runs; 130 on Ctrl-C (the report still shows what ran).`
