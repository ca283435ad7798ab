/**
 * Loads async-profiler into a running JVM through the attach API (jcmd's JVMTI.agent_load splits the
 * agent's comma-separated options). Usage: java AttachProfiler.java PID LIBRARY OPTIONS
 * e.g. OPTIONS "start,event=cpu,interval=200us" then "stop,file=/tmp/p.txt,collapsed".
 */
public class AttachProfiler {
    public static void main(String[] args) throws Exception {
        var vm = com.sun.tools.attach.VirtualMachine.attach(args[0]);
        try {
            vm.loadAgentPath(args[1], args[2]);
        } finally {
            vm.detach();
        }
    }
}
