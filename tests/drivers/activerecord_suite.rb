# Ruby on Rails' ActiveRecord 6.1 (Debian's ruby-activerecord, adapter mysql2 over ruby-mysql2)
# against one server: migrations (create_table with foreign keys, references, indexes, defaults;
# then change_column, rename_column, add_column, add_index, remove_foreign_key), models with
# has_many / belongs_to / has_many :through, eager loading (includes / preload / eager_load),
# transactions with requires_new savepoints, upsert_all / insert_all, optimistic locking, and the
# schema dumper (db/schema.rb), whose text must equal MariaDB's (the MariaDB run writes it to
# $INTEROP_WORKDIR/activerecord-schema.rb; the Cohort run compares when it is there).
# Usage: ruby activerecord_suite.rb TARGET HOST PORT USER PASSWORD
require 'active_record'
require 'stringio'

target, host, port, user, password = ARGV
password ||= ''
$failures = 0
$target = target

def check(cond, what)
  raise what unless cond
end

def run(name)
  yield
  puts "PASS: #{$target}/activerecord/#{name}"
rescue StandardError => e
  $failures += 1
  puts "FAIL: #{$target}/activerecord/#{name}: #{e.class}: #{e.message.gsub("\n", ' ')[0, 600]} at #{e.backtrace&.find { |l| l.include?('activerecord_suite') }}"
end

base = { adapter: 'mysql2', host: host, port: port.to_i, username: user, password: password, encoding: 'utf8mb4' }
ActiveRecord::Base.establish_connection(base)
ActiveRecord::Base.connection.execute('DROP DATABASE IF EXISTS drv_ar')
ActiveRecord::Base.connection.execute('CREATE DATABASE drv_ar')
ActiveRecord::Base.establish_connection(base.merge(database: 'drv_ar'))
ActiveRecord::Migration.verbose = false
ActiveRecord::Base.default_timezone = :utc

class CreateShop < ActiveRecord::Migration[6.1]
  def change
    create_table :customers do |t|
      t.string :name, null: false, limit: 80
      t.string :email, null: false
      t.decimal :credit, precision: 10, scale: 2, default: 0
      t.boolean :vip, default: false, null: false
      t.integer :lock_version, default: 0, null: false
      t.json :prefs
      t.timestamps
    end
    add_index :customers, :email, unique: true
    create_table :products do |t|
      t.string :sku, null: false, limit: 20
      t.text :description
      t.integer :stock, default: 0
      t.index :sku, unique: true
    end
    create_table :orders do |t|
      t.references :customer, null: false, foreign_key: { on_delete: :cascade }
      t.date :placed_on
      t.datetime :shipped_at, precision: 6
      t.string :status, default: 'new'
      t.timestamps
    end
    create_table :line_items do |t|
      t.references :order, null: false, foreign_key: { on_delete: :cascade }
      t.references :product, null: false, foreign_key: true
      t.integer :qty, null: false, default: 1
    end
  end
end

class AlterShop < ActiveRecord::Migration[6.1]
  def up
    change_column :customers, :name, :string, limit: 120, null: false
    rename_column :orders, :status, :state
    add_column :orders, :note, :string, limit: 200
    add_index :orders, %i[state placed_on], name: 'index_orders_on_state_and_placed'
    change_column_default :products, :stock, from: 0, to: 5
    change_column_null :products, :description, false, ''
  end

  def down
    change_column_null :products, :description, true
    change_column_default :products, :stock, from: 5, to: 0
    remove_index :orders, name: 'index_orders_on_state_and_placed'
    remove_column :orders, :note
    rename_column :orders, :state, :status
    change_column :customers, :name, :string, limit: 80, null: false
  end
end

class Customer < ActiveRecord::Base
  attribute :prefs, :json # MariaDB's JSON is LONGTEXT: the adapter types it as text
  has_many :orders, dependent: :destroy
  has_many :line_items, through: :orders
end

class Order < ActiveRecord::Base
  belongs_to :customer
  has_many :line_items
  has_many :products, through: :line_items
end

class Product < ActiveRecord::Base; end

class LineItem < ActiveRecord::Base
  belongs_to :order
  belongs_to :product
end

def dump_schema
  io = StringIO.new
  ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, io)
  io.string.lines.reject { |l| l =~ /ActiveRecord::Schema.define\(version:/ }.join
end

run('migrate-up') do
  CreateShop.migrate(:up)
  tables = ActiveRecord::Base.connection.tables.sort
  check(tables == %w[customers line_items orders products], "tables #{tables}")
  fks = ActiveRecord::Base.connection.foreign_keys('line_items').map { |f| [f.to_table, f.column, f.on_delete] }.sort_by(&:first)
  check(fks == [['orders', 'order_id', :cascade], ['products', 'product_id', nil]], "fks #{fks}")
  cols = ActiveRecord::Base.connection.columns('customers').map { |c| [c.name, c.sql_type, c.null, c.default] }
  check(cols.include?(['credit', 'decimal(10,2)', true, '0.00']) && cols.include?(['vip', 'tinyint(1)', false, '0']), "columns #{cols}")
end

run('crud-and-associations') do
  Customer.reset_column_information
  ann = Customer.create!(name: 'Ann', email: 'ann@x.org', credit: '12.5', prefs: { 'lang' => 'en' })
  bob = Customer.create!(name: 'Bob', email: 'bob@x.org', vip: true)
  check(ann.id == 1 && bob.id == 2, "ids #{ann.id} #{bob.id}")
  pen, ink = Product.create!(sku: 'PEN', description: 'a pen'), Product.create!(sku: 'INK')
  o1 = ann.orders.create!(placed_on: Date.new(2024, 2, 29), shipped_at: Time.utc(2024, 3, 1, 12, 0, 0, 123456))
  o1.line_items.create!(product: pen, qty: 2)
  o1.line_items.create!(product: ink)
  bob.orders.create!.line_items.create!(product: pen, qty: 5)
  a = Customer.find(1)
  check(a.credit == BigDecimal('12.5') && a.prefs == { 'lang' => 'en' } && a.vip == false, "ann #{a.attributes}")
  check(a.orders.first.shipped_at.usec == 123456 && a.orders.first.placed_on == Date.new(2024, 2, 29), 'datetime(6), date')
  # eager loading three ways
  q = Customer.includes(orders: { line_items: :product }).order(:id).to_a
  shape = q.map { |c| [c.name, c.orders.map { |o| o.line_items.sort_by(&:id).map { |li| "#{li.product.sku}x#{li.qty}" } }] }
  check(shape == [['Ann', [['PENx2', 'INKx1']]], ['Bob', [['PENx5']]]], "includes #{shape}")
  ej = Customer.eager_load(:orders).where(orders: { status: 'new' }).order('customers.id').map(&:name)
  check(ej == %w[Ann Bob], "eager_load #{ej}")
  pl = Order.preload(:products).order(:id).map { |o| o.products.map(&:sku).sort }
  check(pl == [%w[INK PEN], ['PEN']], "preload #{pl}")
  totals = LineItem.joins(order: :customer).group('customers.name').order('customers.name').sum(:qty)
  check(totals == { 'Ann' => 3, 'Bob' => 5 }, "group sum #{totals}")
  check(Customer.where('credit > ?', 10).pluck(:email) == ['ann@x.org'], 'pluck')
  check(Customer.find_by(email: 'bob@x.org').line_items.count == 1, 'has_many through count')
  check(Customer.exists?(vip: true) && Customer.where(vip: true).update_all(credit: 1) == 1, 'update_all')
  err = nil
  begin
    Customer.create!(name: 'Dup', email: 'ann@x.org')
  rescue ActiveRecord::RecordNotUnique => e
    err = e
  end
  check(err, 'RecordNotUnique')
  begin
    LineItem.create!(order_id: 999, product: pen)
  rescue ActiveRecord::InvalidForeignKey, ActiveRecord::RecordInvalid => e
    err = e
  end
  check(err.is_a?(ActiveRecord::InvalidForeignKey) || err.is_a?(ActiveRecord::RecordInvalid), "FK #{err.class}")
end

run('transactions') do
  Customer.transaction do
    Customer.create!(name: 'Cy', email: 'cy@x.org')
    Customer.transaction(requires_new: true) do
      Customer.create!(name: 'Di', email: 'di@x.org')
      raise ActiveRecord::Rollback
    end
  end
  check(Customer.where(email: %w[cy@x.org di@x.org]).pluck(:name) == ['Cy'], 'savepoint rollback')
  begin
    Customer.transaction do
      Customer.create!(name: 'Ed', email: 'ed@x.org')
      raise 'boom'
    end
  rescue RuntimeError
  end
  check(!Customer.exists?(email: 'ed@x.org'), 'rolled back')
  c1 = Customer.find(1)
  c2 = Customer.find(1)
  c1.update!(credit: 2)
  stale = false
  begin
    c2.update!(credit: 3)
  rescue ActiveRecord::StaleObjectError
    stale = true
  end
  check(stale, 'optimistic locking')
  Customer.transaction { check(Customer.lock.find(2).name == 'Bob', 'FOR UPDATE') }
end

run('upsert-insert-all') do
  Product.upsert_all([{ sku: 'PEN', description: 'blue pen', stock: 9 }, { sku: 'PAD', description: 'paper', stock: 1 }], returning: false)
  rows = Product.order(:sku).pluck(:sku, :description, :stock)
  check(rows == [['INK', nil, 0], ['PAD', 'paper', 1], ['PEN', 'blue pen', 9]], "upsert_all #{rows}")
  Product.insert_all([{ sku: 'PEN', description: 'x' }, { sku: 'CLIP', description: 'clip' }])
  check(Product.count == 4 && Product.find_by(sku: 'PEN').description == 'blue pen', 'insert_all skips duplicates')
end

run('migrate-alter') do
  Product.where(description: nil).update_all(description: '')
  AlterShop.migrate(:up)
  conn = ActiveRecord::Base.connection
  name = conn.columns('customers').find { |c| c.name == 'name' }
  check(name.sql_type == 'varchar(120)' && !name.null, "name #{name.sql_type}")
  cols = conn.columns('orders').map(&:name)
  check(cols.include?('state') && !cols.include?('status') && cols.include?('note'), "orders #{cols}")
  check(conn.index_exists?(:orders, %i[state placed_on], name: 'index_orders_on_state_and_placed'), 'index')
  stock = conn.columns('products').find { |c| c.name == 'stock' }
  check(stock.default == '5', "default #{stock.default}")
  AlterShop.migrate(:down)
  cols = conn.columns('orders').map(&:name)
  check(cols.include?('status') && !cols.include?('note'), "down #{cols}")
  AlterShop.migrate(:up)
  Customer.destroy(2)
  check(Order.count == 1 && LineItem.count == 2, 'dependent destroy / cascade')
end

run('schema-dump') do
  text = dump_schema
  check(text.include?('add_foreign_key "line_items", "orders", on_delete: :cascade'), "dump #{text[0, 400]}")
  file = File.join(ENV['INTEROP_WORKDIR'] || '/tmp', 'activerecord-schema.rb')
  if $target == 'mariadb'
    File.write(file, text)
  elsif File.exist?(file)
    want = File.read(file)
    if want != text
      diff = want.lines.zip(text.lines).each_with_index.find { |(a, b), _| a != b }
      raise "schema.rb differs from MariaDB's at line #{diff && diff[1] + 1}: want #{diff && diff[0][0].inspect} got #{diff && diff[0][1].inspect}"
    end
  end
end

exit($failures.zero? ? 0 : 1)
