print("coffer CLI: coming with the CLI issue")
