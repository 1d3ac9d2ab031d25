using System;
using System.Text;

namespace Demo
{
    /// <summary>Builds greetings.</summary>
    public class Greeter
    {
        private readonly string prefix;

        public Greeter(string prefix)
        {
            this.prefix = prefix;
        }

        /// <summary>Greets everyone in the list.</summary>
        public string GreetAll(string[] names)
        {
            var sb = new StringBuilder();
            foreach (var name in names)
            {
                sb.AppendLine(prefix + " " + name);
            }
            return sb.ToString();
        }
    }

    public enum Mood { Happy, Grumpy }
}
