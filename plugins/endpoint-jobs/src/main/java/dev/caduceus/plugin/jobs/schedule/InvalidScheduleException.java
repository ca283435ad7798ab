package dev.caduceus.plugin.jobs.schedule;

/** A schedule no rule of http-api §10.3 accepts; the message is the contract's, listing the accepted forms. */
public final class InvalidScheduleException extends Exception {
    public InvalidScheduleException(String schedule) {
        super("Invalid schedule '" + schedule + "'. Use 'every 2h', '30m', a cron expression like '0 9 * * *', "
                + "or an ISO timestamp.", null, false, false);
    }
}
