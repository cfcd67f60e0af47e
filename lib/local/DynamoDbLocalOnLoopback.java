import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to 127.0.0.1 only. Its own main listens on every interface and has no option
 * to choose one (docs/decisions/075), so this builds the server from the same command-line arguments,
 * sets the host of its Jetty connectors, then starts it. lib/local/dynamodbLocal.ts compiles it once
 * (node_modules/.cache) and runs the class, or java's source launcher where it cannot compile it.
 */
public class DynamoDbLocalOnLoopback {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) {
      if (!(connector instanceof ServerConnector)) throw new IllegalStateException("unexpected connector " + connector);
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
  }
}
