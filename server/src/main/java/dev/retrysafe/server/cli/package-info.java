/** The command line: subcommands, their options, and the help text. */
@NullMarked
package dev.retrysafe.server.cli;

import org.jspecify.annotations.NullMarked;
