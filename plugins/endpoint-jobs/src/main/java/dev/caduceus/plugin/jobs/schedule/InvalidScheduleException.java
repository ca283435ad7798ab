package dev.caduceus.plugin.jobs.schedule;

/** A schedule no grammar rule accepts; the message lists the accepted forms, as Hermes' does. */
public final class InvalidScheduleException extends Exception {
    public InvalidScheduleException(String schedule) {
        super("Invalid schedule '" + schedule + "'. Use 'every 2h', '30m', a cron expression like '0 9 * * *', "
                + "or an ISO timestamp.", null, false, false);
    }
}
