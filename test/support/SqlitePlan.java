import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteStatement;
import java.io.File;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How DynamoDB Local's own SQLite (the build inside sqlite4java, older than Node's) plans each
 * statement on a database file: `java -Djava.library.path=<DynamoDBLocal_lib> -cp <sqlite4java.jar>
 * SqlitePlan.java <file> <sql>...` prints `<n>\t<detail>` for each row of EXPLAIN QUERY PLAN of the
 * n-th statement. Read-only.
 */
public class SqlitePlan {
  public static void main(String[] args) throws Exception {
    Logger.getLogger("com.almworks.sqlite4java").setLevel(Level.OFF);
    SQLiteConnection database = new SQLiteConnection(new File(args[0]));
    database.openReadonly();
    try {
      for (int n = 1; n < args.length; n++) {
        SQLiteStatement plan = database.prepare("EXPLAIN QUERY PLAN " + args[n], false);
        try {
          while (plan.step()) System.out.println(n + "\t" + plan.columnString(3));
        } finally {
          plan.dispose();
        }
      }
    } finally {
      database.dispose();
    }
  }
}
