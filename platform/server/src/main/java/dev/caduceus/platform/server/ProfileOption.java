package dev.caduceus.platform.server;

import java.util.Arrays;
import java.util.Optional;

/**
 * Takes {@code -p NAME}, {@code -pNAME}, {@code --profile NAME} or {@code --profile=NAME} off the
 * front of a command line (before the command, as the seed's {@code hermes -p alice gateway}), so
 * the profile is known before anything reads the state directory. Stateless.
 *
 * @param profile the name given, if any
 * @param rest    the command line without it
 * @param error   why the option is unusable (no value, given twice), or null
 */
record ProfileOption(Optional<String> profile, String[] rest, String error) {

    static ProfileOption take(String[] args) {
        String profile = null;
        int i = 0;
        while (i < args.length) {
            var arg = args[i];
            String value;
            int used;
            if (arg.equals("-p") || arg.equals("--profile")) {
                if (i + 1 >= args.length || args[i + 1].startsWith("-"))
                    return new ProfileOption(Optional.empty(), args, arg + " needs a profile name: " + arg + " NAME");
                value = args[i + 1];
                used = 2;
            } else if (arg.startsWith("--profile=")) {
                value = arg.substring("--profile=".length());
                used = 1;
            } else if (arg.startsWith("-p") && arg.length() > 2 && !arg.startsWith("--")) {
                value = arg.substring(2);
                used = 1;
            } else {
                break; // the command, or another option: the profile option comes first
            }
            if (profile != null)
                return new ProfileOption(Optional.empty(), args, "the profile is given twice (" + profile + ", " + value + ")");
            profile = value;
            i += used;
        }
        return new ProfileOption(Optional.ofNullable(profile), Arrays.copyOfRange(args, i, args.length), null);
    }
}
