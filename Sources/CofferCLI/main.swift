// The `coffer` command-line tool: it parses arguments, calls the Coffer library and
// prints. See CofferCommand.swift for the command set and CLI.swift for exit codes.
CLI.run(arguments: Array(CommandLine.arguments.dropFirst()))
