/**
 * The command line of the server's jar ({@link dev.retrysafe.server.cli.Main}): subcommands, their
 * options, the help text, and the tools it runs (webhook signing and listening, the demos). It uses
 * the HTTP app; no package of the app depends on it (ArchitectureTest).
 */
@NullMarked
package dev.retrysafe.server.cli;

import org.jspecify.annotations.NullMarked;
